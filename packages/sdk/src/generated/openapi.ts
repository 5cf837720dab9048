// Generated from docs/openapi.json by `npm run contract:write`. Do not edit.

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check health
         * @description For load balancer probes: always 200. `status` is `degraded` when the database does not answer or rate-limit counters are kept in process memory because Redis is unreachable; `degraded` names which. Not counted against any rate limit.
         *
         *     No credential.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a tenant's grant keys
         * @description The public keys (JWKS) that verify a tenant's execution grants: its current key and retired keys still published, until the last grant each signed expires. No credential; `Cache-Control: public, max-age=300`. An unknown tenant answers an empty set.
         *
         *     No credential.
         */
        get: operations["fetchJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign up
         * @description Creates a tenant, its first user (an admin) and an API key for an agent runtime (its scopes are in the answer), and signs the user in (sets the session cookie). The key is shown only in this answer.
         *
         *     No credential.
         */
        post: operations["signup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in
         * @description Signs a user in with e-mail and password and sets the session cookie. Repeated failures for one account are throttled (429).
         *
         *     No credential.
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Ends the session the request was made with and clears its cookie.
         *
         *     Who may call: any API key, or a session of any role.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who am I
         * @description The tenant and the credential the request was made with: the signed-in user and role, or the API key and its scopes.
         *
         *     Who may call: any API key, or a session of any role.
         */
        get: operations["getCurrentIdentity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description The tenant's users, oldest first.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create a user
         * @description Adds a user to the tenant with a role.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a user
         * @description Removes a user; the tenant must keep at least one admin.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        /**
         * Update a user
         * @description Changes a user's name, e-mail, password or role. The tenant must keep at least one admin.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description The tenant's API keys, without their secrets.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description Issues a key with the given scopes. The key itself (`key`) is shown only in this answer.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Revokes a key at once: requests made with it are refused with 401.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api-keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description Issues a new secret for a key, with its name and scopes; the old secret stops working at once.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["rotateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/evaluate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Evaluate an action
         * @description Decides whether an agent may perform an action: `allow`, `deny`, or `approval_required` (an approval request is opened and its id returned). Every call records a trace with a hash-chained audit trail. Counted against the tenant's `evaluate` rate limit.
         *
         *     Who may call: an API key with the `evaluate` scope (or `admin`).
         */
        post: operations["evaluate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List traces
         * @description Traces newest first, filtered by agent, outcome and time range.
         *
         *     Who may call: an API key with the `traces:read` scope (or `admin`), or a session of any role.
         */
        get: operations["listTraces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a trace
         * @description A trace with its audit events, oldest first, and its approval requests.
         *
         *     Who may call: an API key with the `traces:read` scope (or `admin`), or a session of any role.
         */
        get: operations["getTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}/outcome": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record an outcome
         * @description Reports what happened when the agent acted on an allowed or approved decision: `success` or `error`, with optional metadata. A trace takes one outcome; a second one, or one for a blocked or denied trace, is 409.
         *
         *     Who may call: an API key with the `traces:write` scope (or `admin`), or a session of any role.
         */
        post: operations["recordOutcome"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify a trace's hash chain
         * @description Recomputes the trace's audit-event hash chain and says whether it is intact, naming the first event that is not.
         *
         *     Who may call: an API key with the `traces:read` scope (or `admin`), or a session of any role.
         */
        get: operations["verifyTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{traceId}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a trace
         * @description The trace, its events and approvals as one JSON file (`Content-Disposition: attachment`), verifiable offline.
         *
         *     Who may call: an API key with the `traces:read` scope (or `admin`), or a session with the `reviewer` or `admin` role.
         */
        get: operations["exportTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export traces
         * @description Traces started in a time range as CSV, streamed. `X-Total-Count` gives the number of rows.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `reviewer` or `admin` role.
         */
        get: operations["exportTraces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export audit events
         * @description Audit events in a time range as a JSON array or CSV, streamed. `X-Total-Count` gives the number of rows.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `reviewer` or `admin` role.
         */
        get: operations["exportAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List approval requests
         * @description Approval requests newest first, filtered by status and agent.
         *
         *     Who may call: an API key with the `approvals:read` scope (or `admin`), or a session of any role.
         */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count approval requests
         * @description How many approval requests have a status (all of them without one).
         *
         *     Who may call: an API key with the `approvals:read` scope (or `admin`), or a session of any role.
         */
        get: operations["countApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an approval request
         * @description An approval request with its agent and its trace.
         *
         *     Who may call: an API key with the `approvals:read` scope (or `admin`), or a session of any role.
         */
        get: operations["getApproval"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Poll an approval request's status
         * @description The status of an approval request, for agents waiting for a decision. With `wait`, answers as soon as the status is not `pending`, or after `wait` seconds with the pending status.
         *
         *     Who may call: an API key with the `approvals:read` scope (or `admin`), or a session of any role.
         */
        get: operations["getApprovalStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve an approval request
         * @description Casts an approving vote on a pending request. When the approvals of distinct people reach the request's `approvals_required` (1 unless its rule says more), the request is approved and its trace may go ahead; below that it answers 200 still `pending`, with the vote under `votes`. A request that is no longer pending is 409. A request that needs more than one approver refuses a second vote by one person, and any vote by the principal that created the agent or asked, with 409; an API key cannot approve it (403). `on_behalf_of` casts the vote of a reviewer who delegated their votes to the caller (403 without a delegation in force).
         *
         *     Who may call: an API key with the `approvals:write` scope (or `admin`), or a session with the `reviewer` or `admin` role.
         */
        post: operations["approveApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny an approval request
         * @description Casts a denying vote on a pending request: any deny ends it denied and its trace is blocked. A request that is no longer pending is 409; the checks on who may vote are those of approve.
         *
         *     Who may call: an API key with the `approvals:write` scope (or `admin`), or a session with the `reviewer` or `admin` role.
         */
        post: operations["denyApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/delegations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List delegations
         * @description The organization's delegations of votes, newest first; `current=true` leaves out those ended or revoked.
         *
         *     Who may call: a session with the `reviewer` or `admin` role.
         */
        get: operations["listDelegations"];
        put?: never;
        /**
         * Delegate your votes
         * @description The signed-in reviewer lets another reviewer or admin of the organization vote `on_behalf_of` them from `starts_at` (now when omitted) until `ends_at`, at most 90 days; each such vote names both.
         *
         *     Who may call: a session with the `reviewer` or `admin` role.
         */
        post: operations["createDelegation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/delegations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a delegation
         * @description Ends a delegation now. Only the reviewer who delegated, or an admin, may; revoking it again changes nothing.
         *
         *     Who may call: a session with the `reviewer` or `admin` role.
         */
        delete: operations["revokeDelegation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/grants/{jti}/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeem an execution grant
         * @description Marks a grant used, once, and records `grant_redeemed` in its trace. Any credential of the grant's tenant. A grant already redeemed (`details.redeemed_at`) or expired (`details.expires_at`) is 409.
         *
         *     Who may call: any API key, or a session of any role.
         */
        post: operations["redeemGrant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/grant-keys/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the grant signing key
         * @description Makes a new key current for signing the tenant's grants. The old key stays in the JWKS while a grant it signed is unexpired.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["rotateGrantKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get grant settings
         * @description Whether evaluate signs an execution grant for every allow, as it does for every approved request.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["getGrantSettings"];
        /**
         * Save grant settings
         * @description Turns grants for allowed actions on or off. On, every allow evaluate decides carries `grant`, signed with the tenant's key and expiring after the allowing rule's max_session_ttl (else 300 s).
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        put: operations["replaceGrantSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agents
         * @description Agents, filtered by environment, lifecycle state, authority model, autonomy tier and a search term.
         *
         *     Who may call: an API key with the `agents:read` scope (or `admin`), or a session of any role.
         */
        get: operations["listAgents"];
        put?: never;
        /**
         * Register an agent
         * @description Registers an agent in the `active` state.
         *
         *     Who may call: an API key with the `agents:write` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an agent
         * @description An agent with its recent traces, approval counts and the last 24 hours of decisions.
         *
         *     Who may call: an API key with the `agents:read` scope (or `admin`), or a session of any role.
         */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an agent
         * @description Changes any of an agent's fields.
         *
         *     Who may call: an API key with the `agents:write` scope (or `admin`), or a session with the `admin` role.
         */
        patch: operations["updateAgent"];
        trace?: never;
    };
    "/api/v1/agents/{id}/suspend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Suspend an agent
         * @description Suspends an active agent: its evaluations are denied until it is reactivated. A move its state does not allow is 409.
         *
         *     Who may call: an API key with the `agents:lifecycle` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["suspendAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke an agent
         * @description Revokes an agent for good: its evaluations are denied. A move its state does not allow is 409.
         *
         *     Who may call: an API key with the `agents:lifecycle` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["revokeAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}/reactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reactivate an agent
         * @description Reactivates a suspended agent. A move its state does not allow is 409.
         *
         *     Who may call: an API key with the `agents:lifecycle` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["reactivateAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List policy rules
         * @description Policy rules, filtered by agent, effect, data classification, activity and a search term.
         *
         *     Who may call: an API key with the `policies:read` scope (or `admin`), or a session of any role.
         */
        get: operations["listPolicyRules"];
        put?: never;
        /**
         * Create a policy rule
         * @description Adds a rule to an agent's policy, at version 1. `conditions` is a JSON Logic expression over the evaluated action.
         *
         *     Who may call: an API key with the `policies:write` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["createPolicyRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a policy rule
         * @description A policy rule at its current version.
         *
         *     Who may call: an API key with the `policies:read` scope (or `admin`), or a session of any role.
         */
        get: operations["getPolicyRule"];
        put?: never;
        post?: never;
        /**
         * Deactivate a policy rule
         * @description Deactivates a rule (it stops deciding) and answers it; its history is kept.
         *
         *     Who may call: an API key with the `policies:write` scope (or `admin`), or a session with the `admin` role.
         */
        delete: operations["deactivatePolicyRule"];
        options?: never;
        head?: never;
        /**
         * Update a policy rule
         * @description Changes a rule; each change is a new version, kept in its history. Switching `mode` from `shadow` to `enforce` promotes a shadow rule.
         *
         *     Who may call: an API key with the `policies:write` scope (or `admin`), or a session with the `admin` role.
         */
        patch: operations["updatePolicyRule"];
        trace?: never;
    };
    "/api/v1/policies/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a policy rule's versions
         * @description Every version of a rule, newest first.
         *
         *     Who may call: an API key with the `policies:read` scope (or `admin`), or a session of any role.
         */
        get: operations["listPolicyRuleVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/shadow-report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Report what shadow rules would have changed
         * @description Per shadow rule, the evaluations recorded between `from` and `to` (both included) whose decision it would have changed: how many, from which decision to which, and up to 5 of their traces, newest first. Rules that would have changed nothing are left out; the rest come most changes first, then by rule id. An `agent_id` of no agent of the tenant is 404.
         *
         *     Who may call: an API key with the `policies:read` scope (or `admin`), or a session of any role.
         */
        get: operations["getShadowReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dry-run the policy
         * @description Says what the tenant's active rules would decide for an action, without recording anything. Shadow rules are ignored unless `include_shadow` is true; then they decide as if enforced.
         *
         *     Who may call: an API key with the `policies:read` scope (or `admin`), or a session of any role.
         */
        post: operations["testPolicyRules"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate rule changes over recorded traffic
         * @description Re-decides every evaluation recorded between `from` and `to` (both included; of one agent with `agent_id`) under the current enforced rules with `changes` applied in order, each agent in the state its trace recorded (an agent suspended then stays denied), and says how many decisions would change: by transition, by the rule deciding under the draft, with up to 10 traces per transition, oldest first. Nothing is written. Changes are checked as their endpoints check them: 400 for an invalid condition or, with `agent_id`, a rule of another agent; 404 for an agent or rule not of the tenant. Over `SIMULATE_MAX_EVALUATIONS` (1 000 000) recorded evaluations is 413 `export_too_large` with `details: {total, limit}`, before anything is re-decided.
         *
         *     Who may call: an API key with the `policies:write` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["simulatePolicyChanges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/revision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the revision of the tenant's rules
         * @description An opaque digest over every rule of the tenant, active or not: its id, version and whether it is active. Any create, update or delete changes it. `POST /api/v1/policies/apply` takes it as its optimistic lock.
         *
         *     Who may call: an API key with the `policies:read` scope (or `admin`), or a session of any role.
         */
        get: operations["getPolicyRevision"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a change set to the rules in one transaction
         * @description Makes `changes` (the shape `POST /api/v1/policies/simulate` takes) live, all of them or none. Each is checked as its endpoint checks it: 400 naming the field (e.g. `changes[2].rule.conditions`), 404 for an agent or rule not of the tenant. If the tenant's rules are no longer at `revision`, 409 `conflict` with `details: {revision}` (the current one) and nothing is written; of concurrent applies against one revision exactly one succeeds. Each change is written as its endpoint writes it (a new version, `policy.updated`), the new versions' `change_summary` being the one given. Answers the new revision and the ids created, updated and deleted, in the order of their changes.
         *
         *     Who may call: an API key with the `policies:write` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["applyPolicyChanges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description The tenant's webhook endpoints.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Subscribes a URL to events. The signing secret (`secret`) is shown only in this answer.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook endpoint
         * @description A webhook endpoint, without its secret.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Deletes an endpoint together with its delivery history.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Update a webhook endpoint
         * @description Changes an endpoint's URL, events, description or whether it is active.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an endpoint's deliveries
         * @description Deliveries newest first, filtered by status, capped by `limit`.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends a `test` event to the endpoint now, even an inactive one, and reports what it answered. No delivery is recorded.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["sendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a checkout
         * @description Opens the payment provider's checkout for a plan and answers the page to send the user to.
         *
         *     Who may call: a session with the `admin` role.
         */
        post: operations["startCheckout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open the billing portal
         * @description Opens the payment provider's portal, where the tenant changes or cancels its plan.
         *
         *     Who may call: a session with the `admin` role.
         */
        post: operations["openBillingPortal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the subscription
         * @description The tenant's plan and its status.
         *
         *     Who may call: any API key, or a session of any role.
         */
        get: operations["getSubscription"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive the payment provider's events
         * @description Called by Stripe, not by clients: the `Stripe-Signature` header over the exact body admits the event. Not counted against any rate limit.
         *
         *     No credential.
         */
        post: operations["receiveBillingEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the chat integration
         * @description The tenant's Slack integration, without its secrets. A tenant that never saved settings reads `{mode: null, enabled: false}`.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["getChatSettings"];
        /**
         * Save the chat integration
         * @description Replaces the tenant's Slack integration: an incoming webhook, or a bot that posts approval cards with buttons.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        put: operations["replaceChatSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/chat/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test chat message
         * @description Posts a test message through the saved integration and reports whether it arrived.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        post: operations["sendTestChatMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/integrations/chat/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a chat card's button press
         * @description Called by Slack, not by clients, when an approval card's button is pressed; the signature over the exact body (at most 64 KiB) admits it. Answers 200 with an empty body.
         *
         *     No credential.
         */
        post: operations["receiveChatCallback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get e-mail notifications
         * @description Whether approval requests are mailed, to which reviewers, and to whom when they are escalated.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        get: operations["getNotificationSettings"];
        /**
         * Save e-mail notifications
         * @description Replaces every field (escalation_emails left out is an empty list). A newly listed address is sent a confirmation link and gets no approval or escalation mail until it is confirmed.
         *
         *     Who may call: an API key with the `admin` scope (or `admin`), or a session with the `admin` role.
         */
        put: operations["replaceNotificationSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/email-confirmations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a reviewer's e-mail address
         * @description Confirms an address with the token of the link mailed to it. The token is the credential.
         *
         *     No credential.
         */
        post: operations["confirmEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "approval.requested": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * approval.requested
         * @description An evaluation needs a person to approve it. Sent to each active endpoint subscribed to `approval.requested`. Signed both ways (see the headers).
         */
        post: operations["onApprovalRequested"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "approval.approved": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * approval.approved
         * @description An approval request was approved. Sent to each active endpoint subscribed to `approval.approved`. Signed both ways (see the headers).
         */
        post: operations["onApprovalApproved"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "approval.denied": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * approval.denied
         * @description An approval request was denied. Sent to each active endpoint subscribed to `approval.denied`. Signed both ways (see the headers).
         */
        post: operations["onApprovalDenied"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "approval.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * approval.expired
         * @description An approval request expired undecided. Sent to each active endpoint subscribed to `approval.expired`. Signed both ways (see the headers).
         */
        post: operations["onApprovalExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "trace.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * trace.completed
         * @description An outcome was recorded: the trace is complete. Sent to each active endpoint subscribed to `trace.completed`. Signed both ways (see the headers).
         */
        post: operations["onTraceCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.suspended": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * agent.suspended
         * @description An agent was suspended. Sent to each active endpoint subscribed to `agent.suspended`. Signed both ways (see the headers).
         */
        post: operations["onAgentSuspended"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.revoked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * agent.revoked
         * @description An agent was revoked. Sent to each active endpoint subscribed to `agent.revoked`. Signed both ways (see the headers).
         */
        post: operations["onAgentRevoked"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "policy.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * policy.updated
         * @description A policy rule was created, changed or deactivated. Sent to each active endpoint subscribed to `policy.updated`. Signed both ways (see the headers).
         */
        post: operations["onPolicyUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "audit.event": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * audit.event
         * @description An audit event was recorded: one webhook per event, as a row of the audit export. Sent to each active endpoint subscribed to `audit.event`. Signed both ways (see the headers).
         */
        post: operations["onAuditEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "audit.batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * audit.batch
         * @description Audit events were recorded since the last batch: how many, between which instants. Sent to each active endpoint subscribed to `audit.batch`. Signed both ways (see the headers).
         */
        post: operations["onAuditBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "approval.escalated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * approval.escalated
         * @description An approval request was still pending at its `escalate_at` (its rule's `escalate_after_seconds`): the escalation recipients were told. Sent once per request. Sent to each active endpoint subscribed to `approval.escalated`. Signed both ways (see the headers).
         */
        post: operations["onApprovalEscalated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "budget.threshold": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * budget.threshold
         * @description An evaluation took one of the agent's budgets (a rule's limit on a history operator) to 80 or 100 % of its limit (`threshold`), from below. Sent again only after the window's sliding has taken it back under. Sent to each active endpoint subscribed to `budget.threshold`. Signed both ways (see the headers).
         */
        post: operations["onBudgetThreshold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    test: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * test
         * @description Sent to one endpoint, active or not, when an admin asks (`sendTestWebhook`); no delivery is recorded and it is never retried. Signed both ways (see the headers).
         */
        post: operations["onTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Agent: {
            id: string;
            name: string;
            description: string;
            owner_name: string;
            owner_role: string;
            team: string;
            environment: string;
            authority_model: string;
            identity_mode: string;
            delegation_model: string;
            autonomy_tier: string;
            authorized_integrations: {
                name: string;
                resource_scope: string;
                data_classification: string;
                allowed_operations: string[];
            }[];
            credential_config: {
                [key: string]: unknown;
            } | null;
            metadata: {
                [key: string]: unknown;
            } | null;
            next_review_date: string;
            created_by: string;
            modified_by: string;
            /** Format: date-time */
            modified_at: string;
            /** @enum {string} */
            lifecycle_state: "active" | "suspended" | "revoked";
            max_requests_per_minute: number | null;
            max_identical_requests_per_minute: number | null;
            /** @enum {string} */
            throttle_effect: "approval_required" | "deny";
            /** Format: date-time */
            created_at: string;
        };
        AgentDetail: {
            id: string;
            name: string;
            description: string;
            owner_name: string;
            owner_role: string;
            team: string;
            environment: string;
            authority_model: string;
            identity_mode: string;
            delegation_model: string;
            autonomy_tier: string;
            authorized_integrations: {
                name: string;
                resource_scope: string;
                data_classification: string;
                allowed_operations: string[];
            }[];
            credential_config: {
                [key: string]: unknown;
            } | null;
            metadata: {
                [key: string]: unknown;
            } | null;
            next_review_date: string;
            created_by: string;
            modified_by: string;
            /** Format: date-time */
            modified_at: string;
            /** @enum {string} */
            lifecycle_state: "active" | "suspended" | "revoked";
            max_requests_per_minute: number | null;
            max_identical_requests_per_minute: number | null;
            /** @enum {string} */
            throttle_effect: "approval_required" | "deny";
            /** Format: date-time */
            created_at: string;
            stats: {
                recent_traces: {
                    id: string;
                    requested_operation: string;
                    target_integration: string;
                    resource_scope: string;
                    final_outcome: string;
                    /** Format: date-time */
                    started_at: string;
                    completed_at: string | null;
                }[];
                approval_counts: {
                    pending: number;
                    approved: number;
                    denied: number;
                    expired: number;
                };
                decisions_last_24h: {
                    allow: number;
                    approval_required: number;
                    deny: number;
                };
                trace_count: number;
                /** @description Each comparison of a history operator with a positive number in the agent's enforced rules, in evaluation order. */
                budgets: {
                    /** Format: uuid */
                    policy_rule_id: string;
                    policy_name: string;
                    /** @description The history operator as the rule writes it. */
                    expression: {
                        [key: string]: unknown;
                    };
                    /** @description Its value now; null while the history counters cannot answer. */
                    used: number | null;
                    limit: number;
                }[];
            };
        };
        AgentRevokedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "agent.revoked";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                agent: components["schemas"]["Agent"];
            };
        };
        AgentSuspendedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "agent.suspended";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                agent: components["schemas"]["Agent"];
            };
        };
        ApiKey: {
            id: string;
            name: string;
            prefix: string;
            key_prefix: string;
            scopes: string[];
            last_used_at: string | null;
            /** Format: date-time */
            created_at: string;
            expires_at: string | null;
        };
        Approval: {
            id: string;
            trace_id: string;
            agent_id: string;
            requested_operation: string;
            target_integration: string;
            resource_scope: string;
            data_classification: string;
            /** @enum {string} */
            risk_classification: "low" | "medium" | "high" | "critical";
            authority_model: string;
            delegated_from: string;
            policy_effect: string;
            flag_reason: string;
            /** @enum {string} */
            status: "pending" | "approved" | "denied" | "expired";
            context_snapshot: {
                [key: string]: unknown;
            } | null;
            /**
             * @description sha256 of the JCS (RFC 8785) form of {agent_id, operation, target_integration, resource_scope, data_classification, context}, the action as the approval shows it (context {} when none): a tool can check that the action it runs is the one approved
             * @example sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e
             */
            action_digest: string;
            /** Format: date-time */
            expires_at: string;
            /** @description When the escalation recipients are told if the request is still pending: its rule's escalate_after_seconds after it was made; null when the rule sets none or the request expires first */
            escalate_at: string | null;
            /** @description When the request was escalated; null until then */
            escalated_at: string | null;
            /** Format: date-time */
            requested_at: string;
            decided_at: string | null;
            approver_name: string | null;
            decision_note: string | null;
            approvals_required: number;
            /** @description Every vote cast, in order; approver_name and decided_at describe the deciding one */
            votes: components["schemas"]["ApprovalVote"][];
        };
        ApprovalApprovedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "approval.approved";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                approval: components["schemas"]["Approval"];
            };
        };
        ApprovalCount: {
            count: number;
        };
        ApprovalDeniedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "approval.denied";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                approval: components["schemas"]["Approval"];
            };
        };
        ApprovalDetail: {
            id: string;
            trace_id: string;
            agent_id: string;
            requested_operation: string;
            target_integration: string;
            resource_scope: string;
            data_classification: string;
            /** @enum {string} */
            risk_classification: "low" | "medium" | "high" | "critical";
            authority_model: string;
            delegated_from: string;
            policy_effect: string;
            flag_reason: string;
            /** @enum {string} */
            status: "pending" | "approved" | "denied" | "expired";
            context_snapshot: {
                [key: string]: unknown;
            } | null;
            /**
             * @description sha256 of the JCS (RFC 8785) form of {agent_id, operation, target_integration, resource_scope, data_classification, context}, the action as the approval shows it (context {} when none): a tool can check that the action it runs is the one approved
             * @example sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e
             */
            action_digest: string;
            /** Format: date-time */
            expires_at: string;
            /** @description When the escalation recipients are told if the request is still pending: its rule's escalate_after_seconds after it was made; null when the rule sets none or the request expires first */
            escalate_at: string | null;
            /** @description When the request was escalated; null until then */
            escalated_at: string | null;
            /** Format: date-time */
            requested_at: string;
            decided_at: string | null;
            approver_name: string | null;
            decision_note: string | null;
            approvals_required: number;
            /** @description Every vote cast, in order; approver_name and decided_at describe the deciding one */
            votes: components["schemas"]["ApprovalVote"][];
            /** @description The execution grant once the request is approved, else null */
            grant: string | null;
            /** @description The grant's `exp`; null without a grant */
            grant_expires_at: string | null;
            /** @description When the grant was redeemed; null until then, or without a grant */
            grant_redeemed_at: string | null;
            agent: {
                id: string;
                name: string;
                description: string;
                owner_name: string;
                team: string;
                environment: string;
                authority_model: string;
                autonomy_tier: string;
                lifecycle_state: string;
            } | null;
            trace: components["schemas"]["TraceSummary"] | null;
        };
        ApprovalEscalatedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "approval.escalated";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                approval: components["schemas"]["Approval"];
            };
        };
        ApprovalExpiredWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "approval.expired";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                approval: components["schemas"]["Approval"];
            };
        };
        ApprovalRequestedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "approval.requested";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                approval: components["schemas"]["Approval"];
            };
        };
        ApprovalStatus: {
            id: string;
            /** @enum {string} */
            status: "pending" | "approved" | "denied" | "expired";
            decided_at: string | null;
            approver_name: string | null;
            decision_note: string | null;
            /**
             * @description sha256 of the JCS (RFC 8785) form of {agent_id, operation, target_integration, resource_scope, data_classification, context}, the action as the approval shows it (context {} when none): a tool can check that the action it runs is the one approved
             * @example sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e
             */
            action_digest: string;
            /** @description The execution grant once the request is approved, else null */
            grant: string | null;
        };
        ApprovalVote: {
            /** @enum {string} */
            decision: "approve" | "deny";
            /** @description Who cast the vote, as the service authenticated them */
            principal: string;
            /** @description The reviewer whose delegated vote this is */
            on_behalf_of: string | null;
            approver_name: string;
            decision_note: string | null;
            /** Format: date-time */
            at: string;
        };
        AuditBatchWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "audit.batch";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                /** Format: date-time */
                from: string;
                /** Format: date-time */
                to: string;
                event_count: number;
            };
        };
        AuditEvent: {
            /** Format: uuid */
            event_id: string;
            /** Format: uuid */
            trace_id: string;
            /** Format: uuid */
            agent_id: string;
            event_type: string;
            actor_type: string;
            actor_name: string;
            description: string;
            status: string;
            /** Format: date-time */
            timestamp: string;
            policy_version: number | null;
            integrity_hash: string | null;
        };
        AuditEventWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "audit.event";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                event: components["schemas"]["AuditEvent"];
            };
        };
        BudgetThresholdWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "budget.threshold";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                agent: components["schemas"]["Agent"];
                budget: {
                    /** Format: uuid */
                    policy_rule_id: string;
                    policy_name: string;
                    expression: {
                        [key: string]: unknown;
                    };
                };
                used: number;
                limit: number;
                /** @enum {integer} */
                threshold: 80 | 100;
            };
        };
        ChatSettings: {
            mode: null;
            /** @enum {boolean} */
            enabled: false;
        } | {
            /** @enum {string} */
            mode: "incoming_webhook";
            enabled: boolean;
            has_webhook_url: boolean;
            /** Format: date-time */
            updated_at: string;
        } | {
            /** @enum {string} */
            mode: "bot";
            enabled: boolean;
            app_id: string;
            team_id: string;
            channel_id: string;
            escalation_channel: string | null;
            has_app_secret: boolean;
            has_bot_token: boolean;
            /** Format: date-time */
            updated_at: string;
        };
        CreatedWebhook: {
            id: string;
            url: string;
            events: string[];
            secret: string;
            is_active: boolean;
            description: string | null;
            /** Format: date-time */
            created_at: string;
        };
        Delegation: {
            id: string;
            delegator: {
                id: string;
                name: string;
                email: string;
            };
            delegate: {
                id: string;
                name: string;
                email: string;
            };
            /** Format: date-time */
            starts_at: string;
            /** Format: date-time */
            ends_at: string;
            reason: string | null;
            /** Format: date-time */
            created_at: string;
            revoked_at: string | null;
        };
        DryRunResult: {
            /** @enum {string} */
            effect: "allow" | "approval_required" | "deny";
            rule_id: string | null;
            rationale: string;
            policy_version: number | null;
        };
        Error: {
            /** @description The error code; each response lists those it can carry. */
            error: string;
            message: string;
            status: number;
            /** @description What the error concerns: `fields` for validation errors, the missing scope or role for 403, limits for 429. */
            details?: {
                [key: string]: unknown;
            };
            /** @description The trace the error concerns. */
            trace_id?: string;
            request_id: string;
        };
        Evaluation: {
            /** @enum {string} */
            decision: "allow" | "approval_required" | "deny";
            trace_id: string;
            approval_request_id: string | null;
            reason: string;
            policy_rule_id: string | null;
            /** @enum {string} */
            risk_classification?: "low" | "medium" | "high" | "critical";
            /** @description The execution grant of an allow, present when the tenant turned on grants for allowed actions (PUT /api/v1/settings/grants): a compact JWS a tool verifies offline (docs/grants.md) */
            grant?: string;
        };
        GrantJwk: {
            /** @enum {string} */
            kty: "OKP";
            /** @enum {string} */
            crv: "Ed25519";
            /** @description The public key, base64url */
            x: string;
            kid: string;
            /** @enum {string} */
            alg: "EdDSA";
            /** @enum {string} */
            use: "sig";
        };
        GrantKey: {
            /** @description The key id: the RFC 7638 thumbprint of the public key, the JWS header `kid` of the grants it signs */
            kid: string;
            /** Format: date-time */
            created_at: string;
        };
        GrantSettings: {
            /** @description Evaluate signs an execution grant for every allow (in its answer, `grant`), as for approved requests. Off for a new tenant. */
            issue_on_allow: boolean;
        };
        HostedPage: {
            url: string;
        };
        IssuedApiKey: {
            id: string;
            name: string;
            prefix: string;
            key_prefix: string;
            scopes: string[];
            last_used_at: string | null;
            /** Format: date-time */
            created_at: string;
            expires_at: string | null;
            key: string;
        };
        Jwks: {
            /** @description The tenant's current key and its retired keys still published; empty for a tenant with no keys, or none at all */
            keys: components["schemas"]["GrantJwk"][];
        };
        NotificationSettings: {
            email_enabled: boolean;
            reviewer_emails: string[];
            escalation_emails: string[];
            /** @description The addresses of either list, as written, whose owners have not confirmed them yet: they get no approval or escalation mail. */
            unconfirmed_emails: string[];
        };
        Pagination: {
            total: number;
            limit: number;
            offset: number;
        };
        PolicyRule: {
            id: string;
            agent_id: string;
            policy_name: string;
            target_integration: string;
            operation: string;
            resource_scope: string;
            data_classification: string;
            /** @enum {string} */
            policy_effect: "allow" | "approval_required" | "deny";
            rationale: string;
            priority: number;
            conditions: {
                [key: string]: unknown;
            } | null;
            max_session_ttl: number | null;
            approvals_required: number;
            escalate_after_seconds: number | null;
            /** @enum {string} */
            mode: "enforce" | "shadow";
            modified_by: string;
            /** Format: date-time */
            modified_at: string;
            is_active: boolean;
            policy_version: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        PolicyUpdatedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "policy.updated";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                policy: components["schemas"]["PolicyRule"];
                /** @enum {string} */
                change: "created" | "updated" | "deleted";
            };
        };
        PolicyVersion: {
            id: string;
            policy_rule_id: string;
            version: number;
            policy_name: string;
            target_integration: string;
            operation: string;
            resource_scope: string;
            data_classification: string;
            /** @enum {string} */
            policy_effect: "allow" | "approval_required" | "deny";
            rationale: string;
            priority: number;
            conditions: {
                [key: string]: unknown;
            } | null;
            max_session_ttl: number | null;
            approvals_required: number;
            escalate_after_seconds: number | null;
            /** @enum {string} */
            mode: "enforce" | "shadow";
            modified_by: string;
            /** Format: date-time */
            modified_at: string;
            change_summary: string | null;
        };
        RedeemedGrant: {
            /** Format: uuid */
            jti: string;
            /** @description The approved request, or null for the grant of an allowed action */
            approval_id: string | null;
            /** Format: uuid */
            trace_id: string;
            redeemed_at: string | null;
        };
        RuleChange: components["schemas"]["RuleCreateChange"] | components["schemas"]["RuleUpdateChange"] | components["schemas"]["RuleDeleteChange"];
        RuleCreateChange: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            action: "create";
            rule: {
                /** Format: uuid */
                agent_id: string;
                policy_name: string;
                target_integration: string;
                operation: string;
                resource_scope: string;
                /** @enum {string} */
                data_classification: "public" | "internal" | "confidential" | "restricted";
                /** @enum {string} */
                policy_effect: "allow" | "approval_required" | "deny";
                /** @example Refunds above 500 EUR need a person to look first */
                rationale: string;
                priority: number;
                conditions: {
                    [key: string]: unknown;
                } | null;
                max_session_ttl: number | null;
                /** @description How many distinct people must approve a request this rule queues (1 when omitted); any one deny ends it */
                approvals_required?: number;
                escalate_after_seconds?: number | null;
                /**
                 * @description `enforce` (when omitted on create): the rule decides. `shadow`: it never decides; each evaluation it would have decided otherwise is counted in the shadow report
                 * @enum {string}
                 */
                mode?: "enforce" | "shadow";
                modified_by: string;
                /** Format: date-time */
                modified_at: string;
            };
        };
        RuleDeleteChange: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            action: "delete";
            /** Format: uuid */
            policy_rule_id: string;
        };
        RuleSetApplied: {
            /**
             * @description The revision of the tenant's rules (GET /api/v1/policies/revision); opaque, compare only
             * @example sha256:0000000000000000000000000000000000000000000000000000000000000000
             */
            revision: string;
            /** @description The created rules, in the order of their changes */
            created: string[];
            /** @description The updated rules, in the order of their changes */
            updated: string[];
            /** @description The deleted (deactivated) rules, in the order of their changes */
            deleted: string[];
        };
        RuleSetRevision: {
            /**
             * @description The revision of the tenant's rules (GET /api/v1/policies/revision); opaque, compare only
             * @example sha256:0000000000000000000000000000000000000000000000000000000000000000
             */
            revision: string;
        };
        RuleUpdateChange: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            action: "update";
            /** Format: uuid */
            policy_rule_id: string;
            rule: {
                policy_name?: string;
                target_integration?: string;
                operation?: string;
                resource_scope?: string;
                /** @enum {string} */
                data_classification?: "public" | "internal" | "confidential" | "restricted";
                /** @enum {string} */
                policy_effect?: "allow" | "approval_required" | "deny";
                /** @example Refunds above 500 EUR need a person to look first */
                rationale?: string;
                priority?: number;
                conditions?: {
                    [key: string]: unknown;
                } | null;
                max_session_ttl?: number | null;
                /** @description How many distinct people must approve a request this rule queues (1 when omitted); any one deny ends it */
                approvals_required?: number;
                escalate_after_seconds?: number | null;
                /**
                 * @description `enforce` (when omitted on create): the rule decides. `shadow`: it never decides; each evaluation it would have decided otherwise is counted in the shadow report
                 * @enum {string}
                 */
                mode?: "enforce" | "shadow";
            };
        };
        ShadowReportEntry: {
            policy_rule_id: string;
            policy_name: string;
            /** @description Decisions in the window this shadow rule would have changed */
            would_change: number;
            /** @description Each change from the decision made to the one the rule would have made; most frequent first */
            transitions: {
                /** @enum {string} */
                from: "allow" | "approval_required" | "deny";
                /** @enum {string} */
                to: "allow" | "approval_required" | "deny";
                count: number;
            }[];
            /** @description Traces of some of those decisions (at most 5), newest first */
            sample_trace_ids: string[];
        };
        Simulation: {
            /** @description Recorded evaluations in the window, each re-decided */
            evaluated: number;
            /** @description How many of them the draft would decide otherwise */
            changed: number;
            /** @description Each change from the recorded decision to the new one; most frequent first */
            transitions: {
                /** @enum {string} */
                from: "allow" | "approval_required" | "deny";
                /** @enum {string} */
                to: "allow" | "approval_required" | "deny";
                count: number;
            }[];
            /** @description Per transition in that order, its oldest changed evaluations (at most 10) */
            samples: {
                trace_id: string;
                /** @enum {string} */
                from: "allow" | "approval_required" | "deny";
                /** @enum {string} */
                to: "allow" | "approval_required" | "deny";
                /** @description The rule deciding under the draft; null for a rule the draft creates, a default deny or an inactive agent */
                policy_rule_id: string | null;
                /** @description For a rule the draft creates, the index of its create in `changes`; null otherwise */
                change: number | null;
            }[];
            /** @description Changed decisions per rule deciding under the draft; most first */
            rules: {
                /** @description The rule deciding under the draft; null for a rule the draft creates, a default deny or an inactive agent */
                policy_rule_id: string | null;
                /** @description For a rule the draft creates, the index of its create in `changes`; null otherwise */
                change: number | null;
                changed: number;
            }[];
        };
        Subscription: {
            plan: string;
            status: string;
            /** Format: date-time */
            current_period_end: string;
            cancel_at_period_end: boolean;
        };
        Tenant: {
            id: string;
            name: string;
        };
        TestWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "test";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                message: string;
            };
        };
        Trace: {
            id: string;
            agent_id: string;
            agent_name: string;
            authority_model: string;
            requested_operation: string;
            target_integration: string;
            resource_scope: string;
            parent_trace_id: string | null;
            /** @enum {string} */
            final_outcome: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
            /** Format: date-time */
            started_at: string;
            completed_at: string | null;
            duration_ms: number | null;
        };
        TraceCompletedWebhook: {
            /**
             * Format: uuid
             * @description The delivery id, also in `X-Webhook-ID` and `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            event: "trace.completed";
            /** Format: date-time */
            timestamp: string;
            /** Format: uuid */
            tenant_id: string;
            data: {
                trace: {
                    /** Format: uuid */
                    id: string;
                    /** Format: uuid */
                    agent_id: string;
                    agent_name: string;
                    operation: string;
                    final_outcome: string;
                };
            };
        };
        TraceDetail: {
            id: string;
            agent_id: string;
            agent_name: string;
            authority_model: string;
            requested_operation: string;
            target_integration: string;
            resource_scope: string;
            parent_trace_id: string | null;
            /** @enum {string} */
            final_outcome: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
            /** Format: date-time */
            started_at: string;
            completed_at: string | null;
            duration_ms: number | null;
            events: components["schemas"]["TraceEvent"][];
            approval_requests: {
                id: string;
                status: string;
                approver_name: string | null;
                decided_at: string | null;
            }[];
        };
        TraceEvent: {
            id: string;
            event_type: string;
            actor_type: string;
            actor_name: string;
            description: string;
            status: string;
            /** Format: date-time */
            timestamp: string;
            policy_version: number | null;
            approval_request_id: string | null;
            metadata: {
                [key: string]: unknown;
            } | null;
            integrity_hash: string | null;
        };
        TraceExport: {
            trace: components["schemas"]["Trace"];
            events: components["schemas"]["TraceEvent"][];
            approval_requests: {
                id: string;
                status: string;
                approver_name: string | null;
                decided_at: string | null;
                flag_reason: string;
                decision_note: string | null;
            }[];
            /** Format: date-time */
            exported_at: string;
        };
        TraceSummary: {
            id: string;
            agent_id: string;
            agent_name: string;
            authority_model: string;
            requested_operation: string;
            target_integration: string;
            resource_scope: string;
            /** @enum {string} */
            final_outcome: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
            /** Format: date-time */
            started_at: string;
            completed_at: string | null;
            duration_ms: number | null;
            event_count: number;
            has_approval: boolean;
        };
        User: {
            id: string;
            email: string;
            name: string;
            /** @enum {string} */
            role: "admin" | "reviewer" | "viewer";
            /** Format: date-time */
            created_at: string;
        };
        Verification: {
            trace_id: string;
            valid: boolean;
            event_count: number;
            /** Format: date-time */
            verified_at: string;
            first_invalid_event?: string | null;
        };
        Webhook: {
            id: string;
            url: string;
            events: string[];
            is_active: boolean;
            description: string | null;
            /** Format: date-time */
            created_at: string;
        };
        WebhookDelivery: {
            id: string;
            event_type: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "retrying" | "failed";
            http_status: number | null;
            attempts: number;
            /** Format: date-time */
            created_at: string;
            delivered_at: string | null;
            next_retry_at: string | null;
        };
        WebhookTestResult: {
            delivered: boolean;
            http_status: number | null;
            response_time_ms: number;
            error?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id: the caller's own `X-Request-Id` when it is safe to echo, else one minted for it. Also in every error body. */
        XRequestId: string;
        /** @description Requests a minute the counted allowance admits. */
        XRateLimitLimit: number;
        /** @description Requests left in the sliding 60-second window. */
        XRateLimitRemaining: number;
        /** @description When the window will have forgotten every counted request (Unix seconds). */
        XRateLimitReset: number;
        /** @description Seconds to wait before trying again. */
        RetryAfter: number;
        /** @description `true` when this is the stored answer to an earlier request with the same `Idempotency-Key`. */
        IdempotentReplayed: "true";
        /** @description The download's file name: `attachment; filename="…"`. */
        ContentDisposition: string;
        /** @description The number of rows in the export. */
        XTotalCount: number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    } | {
                        /** @enum {string} */
                        status: "degraded";
                        degraded: ("database" | "rate_limit_counters")[];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    fetchJwks: {
        parameters: {
            query: {
                /** @description The tenant whose keys to list */
                tenant_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "OKP",
                     *           "crv": "Ed25519",
                     *           "x": "text",
                     *           "kid": "text",
                     *           "alg": "EdDSA",
                     *           "use": "sig"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Jwks"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "organization_name": "text",
                 *       "name": "text",
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    organization_name: string;
                    name: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email: string;
                    /** @example correct horse battery staple */
                    password: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "tenant": {
                     *           "id": "text",
                     *           "name": "text"
                     *         },
                     *         "user": {
                     *           "id": "text",
                     *           "email": "text",
                     *           "name": "text",
                     *           "role": "admin",
                     *           "created_at": "2026-11-26T10:15:30.000Z"
                     *         },
                     *         "api_key": {
                     *           "id": "text",
                     *           "name": "text",
                     *           "prefix": "text",
                     *           "key_prefix": "text",
                     *           "scopes": [
                     *             "text"
                     *           ],
                     *           "last_used_at": "2026-11-26T10:15:30.000Z",
                     *           "created_at": "2026-11-26T10:15:30.000Z",
                     *           "expires_at": "2026-11-26T10:15:30.000Z",
                     *           "key": "text"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: {
                            tenant: components["schemas"]["Tenant"];
                            user: components["schemas"]["User"];
                            api_key: components["schemas"]["IssuedApiKey"];
                        };
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "text"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "user": {
                     *           "id": "text",
                     *           "email": "text",
                     *           "name": "text",
                     *           "role": "admin",
                     *           "created_at": "2026-11-26T10:15:30.000Z"
                     *         },
                     *         "tenant": {
                     *           "id": "text",
                     *           "name": "text"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: {
                            user: components["schemas"]["User"];
                            tenant: components["schemas"]["Tenant"];
                        };
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCurrentIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "user": {
                     *           "id": "text",
                     *           "email": "text",
                     *           "name": "text",
                     *           "role": "admin",
                     *           "created_at": "2026-11-26T10:15:30.000Z"
                     *         },
                     *         "tenant": {
                     *           "id": "text",
                     *           "name": "text"
                     *         },
                     *         "role": "text",
                     *         "api_key": {
                     *           "id": "text",
                     *           "name": "text",
                     *           "scopes": [
                     *             "text"
                     *           ]
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: {
                            user: components["schemas"]["User"] | null;
                            tenant: components["schemas"]["Tenant"];
                            role: string | null;
                            api_key: {
                                id: string;
                                name: string;
                                scopes: string[];
                            } | null;
                        };
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query: {
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "email": "text",
                     *           "name": "text",
                     *           "role": "admin",
                     *           "created_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "total": 1,
                     *         "limit": 1,
                     *         "offset": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["User"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "text",
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple",
                 *       "role": "admin"
                 *     }
                 */
                "application/json": {
                    name: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email: string;
                    /** @example correct horse battery staple */
                    password: string;
                    /** @enum {string} */
                    role: "admin" | "reviewer" | "viewer";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "email": "text",
                     *         "name": "text",
                     *         "role": "admin",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["User"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "text",
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple",
                 *       "role": "admin"
                 *     }
                 */
                "application/json": {
                    name?: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email?: string;
                    /** @example correct horse battery staple */
                    password?: string;
                    /** @enum {string} */
                    role?: "admin" | "reviewer" | "viewer";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "email": "text",
                     *         "name": "text",
                     *         "role": "admin",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["User"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query: {
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "name": "text",
                     *           "prefix": "text",
                     *           "key_prefix": "text",
                     *           "scopes": [
                     *             "text"
                     *           ],
                     *           "last_used_at": "2026-11-26T10:15:30.000Z",
                     *           "created_at": "2026-11-26T10:15:30.000Z",
                     *           "expires_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "total": 1,
                     *         "limit": 1,
                     *         "offset": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ApiKey"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "text",
                 *       "scopes": [
                 *         "evaluate"
                 *       ],
                 *       "expires_at": "2026-11-26T10:15:30.000Z"
                 *     }
                 */
                "application/json": {
                    name: string;
                    scopes: ("evaluate" | "agents:read" | "agents:write" | "agents:lifecycle" | "policies:read" | "policies:write" | "traces:read" | "traces:write" | "approvals:read" | "approvals:write" | "admin")[];
                    expires_at?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "prefix": "text",
                     *         "key_prefix": "text",
                     *         "scopes": [
                     *           "text"
                     *         ],
                     *         "last_used_at": "2026-11-26T10:15:30.000Z",
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "expires_at": "2026-11-26T10:15:30.000Z",
                     *         "key": "text"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["IssuedApiKey"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "prefix": "text",
                     *         "key_prefix": "text",
                     *         "scopes": [
                     *           "text"
                     *         ],
                     *         "last_used_at": "2026-11-26T10:15:30.000Z",
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "expires_at": "2026-11-26T10:15:30.000Z",
                     *         "key": "text"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["IssuedApiKey"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    evaluate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "agent_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                 *       "operation": "text",
                 *       "target_integration": "text",
                 *       "resource_scope": "text",
                 *       "data_classification": "public",
                 *       "context": {}
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    agent_id: string;
                    operation: string;
                    target_integration: string;
                    resource_scope: string;
                    /** @enum {string} */
                    data_classification: "public" | "internal" | "confidential" | "restricted";
                    context?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "decision": "allow",
                     *       "trace_id": "text",
                     *       "approval_request_id": "text",
                     *       "reason": "text",
                     *       "policy_rule_id": "text",
                     *       "risk_classification": "low",
                     *       "grant": "text"
                     *     }
                     */
                    "application/json": components["schemas"]["Evaluation"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTraces: {
        parameters: {
            query: {
                agent_id?: string;
                outcome?: "in_progress" | "executed" | "blocked" | "denied" | "completed_with_approval" | "expired";
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                from?: string | unknown | unknown;
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                to?: string | unknown | unknown;
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "agent_id": "text",
                     *           "agent_name": "text",
                     *           "authority_model": "text",
                     *           "requested_operation": "text",
                     *           "target_integration": "text",
                     *           "resource_scope": "text",
                     *           "final_outcome": "in_progress",
                     *           "started_at": "2026-11-26T10:15:30.000Z",
                     *           "completed_at": "2026-11-26T10:15:30.000Z",
                     *           "duration_ms": 1,
                     *           "event_count": 1,
                     *           "has_approval": true
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "total": 1,
                     *         "limit": 1,
                     *         "offset": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["TraceSummary"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "text",
                     *       "agent_id": "text",
                     *       "agent_name": "text",
                     *       "authority_model": "text",
                     *       "requested_operation": "text",
                     *       "target_integration": "text",
                     *       "resource_scope": "text",
                     *       "parent_trace_id": "text",
                     *       "final_outcome": "in_progress",
                     *       "started_at": "2026-11-26T10:15:30.000Z",
                     *       "completed_at": "2026-11-26T10:15:30.000Z",
                     *       "duration_ms": 1,
                     *       "events": [
                     *         {
                     *           "id": "text",
                     *           "event_type": "text",
                     *           "actor_type": "text",
                     *           "actor_name": "text",
                     *           "description": "text",
                     *           "status": "text",
                     *           "timestamp": "2026-11-26T10:15:30.000Z",
                     *           "policy_version": 1,
                     *           "approval_request_id": "text",
                     *           "metadata": {},
                     *           "integrity_hash": "text"
                     *         }
                     *       ],
                     *       "approval_requests": [
                     *         {
                     *           "id": "text",
                     *           "status": "text",
                     *           "approver_name": "text",
                     *           "decided_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["TraceDetail"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    recordOutcome: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "success",
                 *       "metadata": {}
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    status: "success" | "error";
                    metadata?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifyTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "trace_id": "text",
                     *       "valid": true,
                     *       "event_count": 1,
                     *       "verified_at": "2026-11-26T10:15:30.000Z",
                     *       "first_invalid_event": "text"
                     *     }
                     */
                    "application/json": components["schemas"]["Verification"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                traceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, as an attachment. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "trace": {
                     *         "id": "text",
                     *         "agent_id": "text",
                     *         "agent_name": "text",
                     *         "authority_model": "text",
                     *         "requested_operation": "text",
                     *         "target_integration": "text",
                     *         "resource_scope": "text",
                     *         "parent_trace_id": "text",
                     *         "final_outcome": "in_progress",
                     *         "started_at": "2026-11-26T10:15:30.000Z",
                     *         "completed_at": "2026-11-26T10:15:30.000Z",
                     *         "duration_ms": 1
                     *       },
                     *       "events": [
                     *         {
                     *           "id": "text",
                     *           "event_type": "text",
                     *           "actor_type": "text",
                     *           "actor_name": "text",
                     *           "description": "text",
                     *           "status": "text",
                     *           "timestamp": "2026-11-26T10:15:30.000Z",
                     *           "policy_version": 1,
                     *           "approval_request_id": "text",
                     *           "metadata": {},
                     *           "integrity_hash": "text"
                     *         }
                     *       ],
                     *       "approval_requests": [
                     *         {
                     *           "id": "text",
                     *           "status": "text",
                     *           "approver_name": "text",
                     *           "decided_at": "2026-11-26T10:15:30.000Z",
                     *           "flag_reason": "text",
                     *           "decision_note": "text"
                     *         }
                     *       ],
                     *       "exported_at": "2026-11-26T10:15:30.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TraceExport"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportTraces: {
        parameters: {
            query: {
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                from: string | unknown | unknown;
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                to: string | unknown | unknown;
                format: "csv";
                agent_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, as an attachment. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "X-Total-Count": components["headers"]["XTotalCount"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /** @example trace_id,agent_id,agent_name,operation,target_integration,resource_scope,data_classification,final_outcome,started_at,completed_at,duration_ms,approval_required,approver_name,approval_decision,approval_decided_at,policy_rule_id,policy_version */
                    "text/csv": string;
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `export_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "export_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "export_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportAudit: {
        parameters: {
            query: {
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                from: string | unknown | unknown;
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                to: string | unknown | unknown;
                format: "json" | "csv";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, as an attachment. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "X-Total-Count": components["headers"]["XTotalCount"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /** @example [] */
                    "application/json": components["schemas"]["AuditEvent"][];
                    /** @example event_id,trace_id,agent_id,event_type,actor_type,actor_name,description,status,timestamp,policy_version,integrity_hash */
                    "text/csv": string;
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `export_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "export_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "export_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApprovals: {
        parameters: {
            query: {
                status?: "pending" | "approved" | "denied" | "expired";
                agent_id?: string;
                limit: number;
                offset: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "trace_id": "text",
                     *           "agent_id": "text",
                     *           "requested_operation": "text",
                     *           "target_integration": "text",
                     *           "resource_scope": "text",
                     *           "data_classification": "text",
                     *           "risk_classification": "low",
                     *           "authority_model": "text",
                     *           "delegated_from": "text",
                     *           "policy_effect": "text",
                     *           "flag_reason": "text",
                     *           "status": "pending",
                     *           "context_snapshot": {},
                     *           "action_digest": "sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e",
                     *           "expires_at": "2026-11-26T10:15:30.000Z",
                     *           "escalate_at": "2026-11-26T10:15:30.000Z",
                     *           "escalated_at": "2026-11-26T10:15:30.000Z",
                     *           "requested_at": "2026-11-26T10:15:30.000Z",
                     *           "decided_at": "2026-11-26T10:15:30.000Z",
                     *           "approver_name": "text",
                     *           "decision_note": "text",
                     *           "approvals_required": 1,
                     *           "votes": [
                     *             {
                     *               "decision": "approve",
                     *               "principal": "text",
                     *               "on_behalf_of": "text",
                     *               "approver_name": "text",
                     *               "decision_note": "text",
                     *               "at": "2026-11-26T10:15:30.000Z"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "total": 1,
                     *         "limit": 1,
                     *         "offset": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Approval"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    countApprovals: {
        parameters: {
            query?: {
                status?: "pending" | "approved" | "denied" | "expired";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "count": 1
                     *     }
                     */
                    "application/json": components["schemas"]["ApprovalCount"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "trace_id": "text",
                     *         "agent_id": "text",
                     *         "requested_operation": "text",
                     *         "target_integration": "text",
                     *         "resource_scope": "text",
                     *         "data_classification": "text",
                     *         "risk_classification": "low",
                     *         "authority_model": "text",
                     *         "delegated_from": "text",
                     *         "policy_effect": "text",
                     *         "flag_reason": "text",
                     *         "status": "pending",
                     *         "context_snapshot": {},
                     *         "action_digest": "sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e",
                     *         "expires_at": "2026-11-26T10:15:30.000Z",
                     *         "escalate_at": "2026-11-26T10:15:30.000Z",
                     *         "escalated_at": "2026-11-26T10:15:30.000Z",
                     *         "requested_at": "2026-11-26T10:15:30.000Z",
                     *         "decided_at": "2026-11-26T10:15:30.000Z",
                     *         "approver_name": "text",
                     *         "decision_note": "text",
                     *         "approvals_required": 1,
                     *         "votes": [
                     *           {
                     *             "decision": "approve",
                     *             "principal": "text",
                     *             "on_behalf_of": "text",
                     *             "approver_name": "text",
                     *             "decision_note": "text",
                     *             "at": "2026-11-26T10:15:30.000Z"
                     *           }
                     *         ],
                     *         "grant": "eyJhbGciOiJFZERTQSIsInR5cCI6ImFnb3YtZ3JhbnQrand0Iiwia2lkIjoiTmYzQjFiQzBwOVZiWTNyQzVtRTJ1WHFrMXpKOHdxNG83eVRuNnMwYUwyYyJ9.eyJqdGkiOiI3ZDBjM2Y0ZS01YjZhLTRjMWQtOWU4Zi0yYTNiNGM1ZDZlN2YifQ.luccB3yGWkbm-Jb5lHDM1D4eHMdUdAPWbTcVhAVvxU5sfuAtgr9drATSE3Qjo13PWTgcPeQ8G2OqoWwR1hR-0A",
                     *         "grant_expires_at": "2026-11-26T10:15:30.000Z",
                     *         "grant_redeemed_at": "2026-11-26T10:15:30.000Z",
                     *         "agent": {
                     *           "id": "text",
                     *           "name": "text",
                     *           "description": "text",
                     *           "owner_name": "text",
                     *           "team": "text",
                     *           "environment": "text",
                     *           "authority_model": "text",
                     *           "autonomy_tier": "text",
                     *           "lifecycle_state": "text"
                     *         },
                     *         "trace": {
                     *           "id": "text",
                     *           "agent_id": "text",
                     *           "agent_name": "text",
                     *           "authority_model": "text",
                     *           "requested_operation": "text",
                     *           "target_integration": "text",
                     *           "resource_scope": "text",
                     *           "final_outcome": "in_progress",
                     *           "started_at": "2026-11-26T10:15:30.000Z",
                     *           "completed_at": "2026-11-26T10:15:30.000Z",
                     *           "duration_ms": 1,
                     *           "event_count": 1,
                     *           "has_approval": true
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ApprovalDetail"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApprovalStatus: {
        parameters: {
            query?: {
                /** @description Seconds to hold the answer while the request is pending: it comes as soon as the request is decided or expires */
                wait?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "text",
                     *       "status": "pending",
                     *       "decided_at": "2026-11-26T10:15:30.000Z",
                     *       "approver_name": "text",
                     *       "decision_note": "text",
                     *       "action_digest": "sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e",
                     *       "grant": "eyJhbGciOiJFZERTQSIsInR5cCI6ImFnb3YtZ3JhbnQrand0Iiwia2lkIjoiTmYzQjFiQzBwOVZiWTNyQzVtRTJ1WHFrMXpKOHdxNG83eVRuNnMwYUwyYyJ9.eyJqdGkiOiI3ZDBjM2Y0ZS01YjZhLTRjMWQtOWU4Zi0yYTNiNGM1ZDZlN2YifQ.luccB3yGWkbm-Jb5lHDM1D4eHMdUdAPWbTcVhAVvxU5sfuAtgr9drATSE3Qjo13PWTgcPeQ8G2OqoWwR1hR-0A"
                     *     }
                     */
                    "application/json": components["schemas"]["ApprovalStatus"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    approveApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "approver_name": "text",
                 *       "decision_note": "text",
                 *       "on_behalf_of": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    approver_name: string;
                    decision_note?: string;
                    /**
                     * Format: email
                     * @description The e-mail of the reviewer whose vote this is, cast under their delegation to the signed-in caller
                     */
                    on_behalf_of?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "trace_id": "text",
                     *         "agent_id": "text",
                     *         "requested_operation": "text",
                     *         "target_integration": "text",
                     *         "resource_scope": "text",
                     *         "data_classification": "text",
                     *         "risk_classification": "low",
                     *         "authority_model": "text",
                     *         "delegated_from": "text",
                     *         "policy_effect": "text",
                     *         "flag_reason": "text",
                     *         "status": "pending",
                     *         "context_snapshot": {},
                     *         "action_digest": "sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e",
                     *         "expires_at": "2026-11-26T10:15:30.000Z",
                     *         "escalate_at": "2026-11-26T10:15:30.000Z",
                     *         "escalated_at": "2026-11-26T10:15:30.000Z",
                     *         "requested_at": "2026-11-26T10:15:30.000Z",
                     *         "decided_at": "2026-11-26T10:15:30.000Z",
                     *         "approver_name": "text",
                     *         "decision_note": "text",
                     *         "approvals_required": 1,
                     *         "votes": [
                     *           {
                     *             "decision": "approve",
                     *             "principal": "text",
                     *             "on_behalf_of": "text",
                     *             "approver_name": "text",
                     *             "decision_note": "text",
                     *             "at": "2026-11-26T10:15:30.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Approval"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    denyApproval: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "approver_name": "text",
                 *       "decision_note": "text",
                 *       "on_behalf_of": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    approver_name: string;
                    decision_note?: string;
                    /**
                     * Format: email
                     * @description The e-mail of the reviewer whose vote this is, cast under their delegation to the signed-in caller
                     */
                    on_behalf_of?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "trace_id": "text",
                     *         "agent_id": "text",
                     *         "requested_operation": "text",
                     *         "target_integration": "text",
                     *         "resource_scope": "text",
                     *         "data_classification": "text",
                     *         "risk_classification": "low",
                     *         "authority_model": "text",
                     *         "delegated_from": "text",
                     *         "policy_effect": "text",
                     *         "flag_reason": "text",
                     *         "status": "pending",
                     *         "context_snapshot": {},
                     *         "action_digest": "sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e",
                     *         "expires_at": "2026-11-26T10:15:30.000Z",
                     *         "escalate_at": "2026-11-26T10:15:30.000Z",
                     *         "escalated_at": "2026-11-26T10:15:30.000Z",
                     *         "requested_at": "2026-11-26T10:15:30.000Z",
                     *         "decided_at": "2026-11-26T10:15:30.000Z",
                     *         "approver_name": "text",
                     *         "decision_note": "text",
                     *         "approvals_required": 1,
                     *         "votes": [
                     *           {
                     *             "decision": "approve",
                     *             "principal": "text",
                     *             "on_behalf_of": "text",
                     *             "approver_name": "text",
                     *             "decision_note": "text",
                     *             "at": "2026-11-26T10:15:30.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Approval"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDelegations: {
        parameters: {
            query?: {
                /** @description Only delegations neither ended nor revoked */
                current?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "delegator": {
                     *             "id": "text",
                     *             "name": "text",
                     *             "email": "text"
                     *           },
                     *           "delegate": {
                     *             "id": "text",
                     *             "name": "text",
                     *             "email": "text"
                     *           },
                     *           "starts_at": "2026-11-26T10:15:30.000Z",
                     *           "ends_at": "2026-11-26T10:15:30.000Z",
                     *           "reason": "text",
                     *           "created_at": "2026-11-26T10:15:30.000Z",
                     *           "revoked_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Delegation"][];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createDelegation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "delegate_email": "ada@example.com",
                 *       "starts_at": "2026-11-26T10:15:30.000Z",
                 *       "ends_at": "2026-11-26T10:15:30.000Z",
                 *       "reason": "text"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    delegate_email: string;
                    /**
                     * Format: date-time
                     * @description When the delegation begins; now when omitted
                     */
                    starts_at?: string;
                    /**
                     * Format: date-time
                     * @description When it ends: after starts_at, at most 90 days later
                     */
                    ends_at: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "delegator": {
                     *           "id": "text",
                     *           "name": "text",
                     *           "email": "text"
                     *         },
                     *         "delegate": {
                     *           "id": "text",
                     *           "name": "text",
                     *           "email": "text"
                     *         },
                     *         "starts_at": "2026-11-26T10:15:30.000Z",
                     *         "ends_at": "2026-11-26T10:15:30.000Z",
                     *         "reason": "text",
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "revoked_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Delegation"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeDelegation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "delegator": {
                     *           "id": "text",
                     *           "name": "text",
                     *           "email": "text"
                     *         },
                     *         "delegate": {
                     *           "id": "text",
                     *           "name": "text",
                     *           "email": "text"
                     *         },
                     *         "starts_at": "2026-11-26T10:15:30.000Z",
                     *         "ends_at": "2026-11-26T10:15:30.000Z",
                     *         "reason": "text",
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "revoked_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Delegation"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    redeemGrant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The grant's `jti` claim */
                jti: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "jti": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                     *         "approval_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                     *         "trace_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                     *         "redeemed_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["RedeemedGrant"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateGrantKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "kid": "text",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["GrantKey"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getGrantSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "issue_on_allow": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["GrantSettings"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replaceGrantSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "issue_on_allow": true
                 *     }
                 */
                "application/json": {
                    /** @description Evaluate signs an execution grant for every allow (in its answer, `grant`), as for approved requests. Off for a new tenant. */
                    issue_on_allow: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "issue_on_allow": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["GrantSettings"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query: {
                limit: number;
                offset: number;
                environment?: "dev" | "test" | "prod";
                lifecycle_state?: "active" | "suspended" | "revoked";
                authority_model?: "self" | "delegated" | "hybrid";
                autonomy_tier?: "low" | "medium" | "high";
                search?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "name": "text",
                     *           "description": "text",
                     *           "owner_name": "text",
                     *           "owner_role": "text",
                     *           "team": "text",
                     *           "environment": "text",
                     *           "authority_model": "text",
                     *           "identity_mode": "text",
                     *           "delegation_model": "text",
                     *           "autonomy_tier": "text",
                     *           "authorized_integrations": [
                     *             {
                     *               "name": "text",
                     *               "resource_scope": "text",
                     *               "data_classification": "text",
                     *               "allowed_operations": [
                     *                 "text"
                     *               ]
                     *             }
                     *           ],
                     *           "credential_config": {},
                     *           "metadata": {},
                     *           "next_review_date": "text",
                     *           "created_by": "text",
                     *           "modified_by": "text",
                     *           "modified_at": "2026-11-26T10:15:30.000Z",
                     *           "lifecycle_state": "active",
                     *           "max_requests_per_minute": 1,
                     *           "max_identical_requests_per_minute": 1,
                     *           "throttle_effect": "approval_required",
                     *           "created_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "total": 1,
                     *         "limit": 1,
                     *         "offset": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Agent"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "text",
                 *       "description": "text",
                 *       "owner_name": "text",
                 *       "owner_role": "text",
                 *       "team": "text",
                 *       "environment": "dev",
                 *       "authority_model": "self",
                 *       "identity_mode": "service_identity",
                 *       "delegation_model": "self",
                 *       "autonomy_tier": "low",
                 *       "authorized_integrations": [
                 *         {
                 *           "name": "text",
                 *           "resource_scope": "text",
                 *           "data_classification": "public",
                 *           "allowed_operations": [
                 *             "text"
                 *           ]
                 *         }
                 *       ],
                 *       "credential_config": {},
                 *       "metadata": {},
                 *       "next_review_date": "2026-12-31",
                 *       "created_by": "text",
                 *       "modified_by": "text",
                 *       "modified_at": "2026-11-26T10:15:30.000Z",
                 *       "max_requests_per_minute": 1,
                 *       "max_identical_requests_per_minute": 1,
                 *       "throttle_effect": "approval_required"
                 *     }
                 */
                "application/json": {
                    name: string;
                    description: string;
                    owner_name: string;
                    owner_role: string;
                    team: string;
                    /** @enum {string} */
                    environment: "dev" | "test" | "prod";
                    /** @enum {string} */
                    authority_model: "self" | "delegated" | "hybrid";
                    /** @enum {string} */
                    identity_mode: "service_identity" | "delegated_identity" | "hybrid_identity";
                    /** @enum {string} */
                    delegation_model: "self" | "on_behalf_of_user" | "on_behalf_of_owner" | "mixed";
                    /** @enum {string} */
                    autonomy_tier: "low" | "medium" | "high";
                    authorized_integrations: {
                        name: string;
                        resource_scope: string;
                        /** @enum {string} */
                        data_classification: "public" | "internal" | "confidential" | "restricted";
                        allowed_operations: string[];
                    }[];
                    credential_config: {
                        [key: string]: unknown;
                    } | null;
                    metadata: {
                        [key: string]: unknown;
                    } | null;
                    next_review_date: string;
                    created_by: string;
                    modified_by: string;
                    /** Format: date-time */
                    modified_at: string;
                    /** @description Evaluations of this agent admitted in any 60 s before its throttle_effect applies; null (default): no limit */
                    max_requests_per_minute?: number | null;
                    /** @description The same for one identical action (same action_digest): the loop guard; null (default): no limit */
                    max_identical_requests_per_minute?: number | null;
                    /**
                     * @description The decision of a request past either limit; deny when left out on create
                     * @enum {string}
                     */
                    throttle_effect?: "approval_required" | "deny";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "description": "text",
                     *         "owner_name": "text",
                     *         "owner_role": "text",
                     *         "team": "text",
                     *         "environment": "text",
                     *         "authority_model": "text",
                     *         "identity_mode": "text",
                     *         "delegation_model": "text",
                     *         "autonomy_tier": "text",
                     *         "authorized_integrations": [
                     *           {
                     *             "name": "text",
                     *             "resource_scope": "text",
                     *             "data_classification": "text",
                     *             "allowed_operations": [
                     *               "text"
                     *             ]
                     *           }
                     *         ],
                     *         "credential_config": {},
                     *         "metadata": {},
                     *         "next_review_date": "text",
                     *         "created_by": "text",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "lifecycle_state": "active",
                     *         "max_requests_per_minute": 1,
                     *         "max_identical_requests_per_minute": 1,
                     *         "throttle_effect": "approval_required",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "description": "text",
                     *         "owner_name": "text",
                     *         "owner_role": "text",
                     *         "team": "text",
                     *         "environment": "text",
                     *         "authority_model": "text",
                     *         "identity_mode": "text",
                     *         "delegation_model": "text",
                     *         "autonomy_tier": "text",
                     *         "authorized_integrations": [
                     *           {
                     *             "name": "text",
                     *             "resource_scope": "text",
                     *             "data_classification": "text",
                     *             "allowed_operations": [
                     *               "text"
                     *             ]
                     *           }
                     *         ],
                     *         "credential_config": {},
                     *         "metadata": {},
                     *         "next_review_date": "text",
                     *         "created_by": "text",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "lifecycle_state": "active",
                     *         "max_requests_per_minute": 1,
                     *         "max_identical_requests_per_minute": 1,
                     *         "throttle_effect": "approval_required",
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "stats": {
                     *           "recent_traces": [
                     *             {
                     *               "id": "text",
                     *               "requested_operation": "text",
                     *               "target_integration": "text",
                     *               "resource_scope": "text",
                     *               "final_outcome": "text",
                     *               "started_at": "2026-11-26T10:15:30.000Z",
                     *               "completed_at": "2026-11-26T10:15:30.000Z"
                     *             }
                     *           ],
                     *           "approval_counts": {
                     *             "pending": 1,
                     *             "approved": 1,
                     *             "denied": 1,
                     *             "expired": 1
                     *           },
                     *           "decisions_last_24h": {
                     *             "allow": 1,
                     *             "approval_required": 1,
                     *             "deny": 1
                     *           },
                     *           "trace_count": 1,
                     *           "budgets": [
                     *             {
                     *               "policy_rule_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                     *               "policy_name": "text",
                     *               "expression": {},
                     *               "used": 1,
                     *               "limit": 1
                     *             }
                     *           ]
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["AgentDetail"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "text",
                 *       "description": "text",
                 *       "owner_name": "text",
                 *       "owner_role": "text",
                 *       "team": "text",
                 *       "environment": "dev",
                 *       "authority_model": "self",
                 *       "identity_mode": "service_identity",
                 *       "delegation_model": "self",
                 *       "autonomy_tier": "low",
                 *       "authorized_integrations": [
                 *         {
                 *           "name": "text",
                 *           "resource_scope": "text",
                 *           "data_classification": "public",
                 *           "allowed_operations": [
                 *             "text"
                 *           ]
                 *         }
                 *       ],
                 *       "credential_config": {},
                 *       "metadata": {},
                 *       "next_review_date": "2026-12-31",
                 *       "created_by": "text",
                 *       "modified_by": "text",
                 *       "modified_at": "2026-11-26T10:15:30.000Z",
                 *       "max_requests_per_minute": 1,
                 *       "max_identical_requests_per_minute": 1,
                 *       "throttle_effect": "approval_required"
                 *     }
                 */
                "application/json": {
                    name?: string;
                    description?: string;
                    owner_name?: string;
                    owner_role?: string;
                    team?: string;
                    /** @enum {string} */
                    environment?: "dev" | "test" | "prod";
                    /** @enum {string} */
                    authority_model?: "self" | "delegated" | "hybrid";
                    /** @enum {string} */
                    identity_mode?: "service_identity" | "delegated_identity" | "hybrid_identity";
                    /** @enum {string} */
                    delegation_model?: "self" | "on_behalf_of_user" | "on_behalf_of_owner" | "mixed";
                    /** @enum {string} */
                    autonomy_tier?: "low" | "medium" | "high";
                    authorized_integrations?: {
                        name: string;
                        resource_scope: string;
                        /** @enum {string} */
                        data_classification: "public" | "internal" | "confidential" | "restricted";
                        allowed_operations: string[];
                    }[];
                    credential_config?: {
                        [key: string]: unknown;
                    } | null;
                    metadata?: {
                        [key: string]: unknown;
                    } | null;
                    next_review_date?: string;
                    created_by?: string;
                    modified_by?: string;
                    /** Format: date-time */
                    modified_at?: string;
                    /** @description Evaluations of this agent admitted in any 60 s before its throttle_effect applies; null (default): no limit */
                    max_requests_per_minute?: number | null;
                    /** @description The same for one identical action (same action_digest): the loop guard; null (default): no limit */
                    max_identical_requests_per_minute?: number | null;
                    /**
                     * @description The decision of a request past either limit; deny when left out on create
                     * @enum {string}
                     */
                    throttle_effect?: "approval_required" | "deny";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "description": "text",
                     *         "owner_name": "text",
                     *         "owner_role": "text",
                     *         "team": "text",
                     *         "environment": "text",
                     *         "authority_model": "text",
                     *         "identity_mode": "text",
                     *         "delegation_model": "text",
                     *         "autonomy_tier": "text",
                     *         "authorized_integrations": [
                     *           {
                     *             "name": "text",
                     *             "resource_scope": "text",
                     *             "data_classification": "text",
                     *             "allowed_operations": [
                     *               "text"
                     *             ]
                     *           }
                     *         ],
                     *         "credential_config": {},
                     *         "metadata": {},
                     *         "next_review_date": "text",
                     *         "created_by": "text",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "lifecycle_state": "active",
                     *         "max_requests_per_minute": 1,
                     *         "max_identical_requests_per_minute": 1,
                     *         "throttle_effect": "approval_required",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    suspendAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "description": "text",
                     *         "owner_name": "text",
                     *         "owner_role": "text",
                     *         "team": "text",
                     *         "environment": "text",
                     *         "authority_model": "text",
                     *         "identity_mode": "text",
                     *         "delegation_model": "text",
                     *         "autonomy_tier": "text",
                     *         "authorized_integrations": [
                     *           {
                     *             "name": "text",
                     *             "resource_scope": "text",
                     *             "data_classification": "text",
                     *             "allowed_operations": [
                     *               "text"
                     *             ]
                     *           }
                     *         ],
                     *         "credential_config": {},
                     *         "metadata": {},
                     *         "next_review_date": "text",
                     *         "created_by": "text",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "lifecycle_state": "active",
                     *         "max_requests_per_minute": 1,
                     *         "max_identical_requests_per_minute": 1,
                     *         "throttle_effect": "approval_required",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "description": "text",
                     *         "owner_name": "text",
                     *         "owner_role": "text",
                     *         "team": "text",
                     *         "environment": "text",
                     *         "authority_model": "text",
                     *         "identity_mode": "text",
                     *         "delegation_model": "text",
                     *         "autonomy_tier": "text",
                     *         "authorized_integrations": [
                     *           {
                     *             "name": "text",
                     *             "resource_scope": "text",
                     *             "data_classification": "text",
                     *             "allowed_operations": [
                     *               "text"
                     *             ]
                     *           }
                     *         ],
                     *         "credential_config": {},
                     *         "metadata": {},
                     *         "next_review_date": "text",
                     *         "created_by": "text",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "lifecycle_state": "active",
                     *         "max_requests_per_minute": 1,
                     *         "max_identical_requests_per_minute": 1,
                     *         "throttle_effect": "approval_required",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    reactivateAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "name": "text",
                     *         "description": "text",
                     *         "owner_name": "text",
                     *         "owner_role": "text",
                     *         "team": "text",
                     *         "environment": "text",
                     *         "authority_model": "text",
                     *         "identity_mode": "text",
                     *         "delegation_model": "text",
                     *         "autonomy_tier": "text",
                     *         "authorized_integrations": [
                     *           {
                     *             "name": "text",
                     *             "resource_scope": "text",
                     *             "data_classification": "text",
                     *             "allowed_operations": [
                     *               "text"
                     *             ]
                     *           }
                     *         ],
                     *         "credential_config": {},
                     *         "metadata": {},
                     *         "next_review_date": "text",
                     *         "created_by": "text",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "lifecycle_state": "active",
                     *         "max_requests_per_minute": 1,
                     *         "max_identical_requests_per_minute": 1,
                     *         "throttle_effect": "approval_required",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Agent"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPolicyRules: {
        parameters: {
            query: {
                limit: number;
                offset: number;
                agent_id?: string;
                effect?: "allow" | "approval_required" | "deny";
                data_classification?: "public" | "internal" | "confidential" | "restricted";
                is_active?: boolean;
                search?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "agent_id": "text",
                     *           "policy_name": "text",
                     *           "target_integration": "text",
                     *           "operation": "text",
                     *           "resource_scope": "text",
                     *           "data_classification": "text",
                     *           "policy_effect": "allow",
                     *           "rationale": "text",
                     *           "priority": 1,
                     *           "conditions": {},
                     *           "max_session_ttl": 1,
                     *           "approvals_required": 1,
                     *           "escalate_after_seconds": 1,
                     *           "mode": "enforce",
                     *           "modified_by": "text",
                     *           "modified_at": "2026-11-26T10:15:30.000Z",
                     *           "is_active": true,
                     *           "policy_version": 1,
                     *           "created_at": "2026-11-26T10:15:30.000Z",
                     *           "updated_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "total": 1,
                     *         "limit": 1,
                     *         "offset": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PolicyRule"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPolicyRule: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "agent_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                 *       "policy_name": "text",
                 *       "target_integration": "text",
                 *       "operation": "text",
                 *       "resource_scope": "text",
                 *       "data_classification": "public",
                 *       "policy_effect": "allow",
                 *       "rationale": "Refunds above 500 EUR need a person to look first",
                 *       "priority": 1,
                 *       "conditions": {},
                 *       "max_session_ttl": 1,
                 *       "approvals_required": 1,
                 *       "escalate_after_seconds": 1,
                 *       "mode": "enforce",
                 *       "modified_by": "text",
                 *       "modified_at": "2026-11-26T10:15:30.000Z"
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    agent_id: string;
                    policy_name: string;
                    target_integration: string;
                    operation: string;
                    resource_scope: string;
                    /** @enum {string} */
                    data_classification: "public" | "internal" | "confidential" | "restricted";
                    /** @enum {string} */
                    policy_effect: "allow" | "approval_required" | "deny";
                    /** @example Refunds above 500 EUR need a person to look first */
                    rationale: string;
                    priority: number;
                    conditions: {
                        [key: string]: unknown;
                    } | null;
                    max_session_ttl: number | null;
                    /** @description How many distinct people must approve a request this rule queues (1 when omitted); any one deny ends it */
                    approvals_required?: number;
                    escalate_after_seconds?: number | null;
                    /**
                     * @description `enforce` (when omitted on create): the rule decides. `shadow`: it never decides; each evaluation it would have decided otherwise is counted in the shadow report
                     * @enum {string}
                     */
                    mode?: "enforce" | "shadow";
                    modified_by: string;
                    /** Format: date-time */
                    modified_at: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "agent_id": "text",
                     *         "policy_name": "text",
                     *         "target_integration": "text",
                     *         "operation": "text",
                     *         "resource_scope": "text",
                     *         "data_classification": "text",
                     *         "policy_effect": "allow",
                     *         "rationale": "text",
                     *         "priority": 1,
                     *         "conditions": {},
                     *         "max_session_ttl": 1,
                     *         "approvals_required": 1,
                     *         "escalate_after_seconds": 1,
                     *         "mode": "enforce",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "is_active": true,
                     *         "policy_version": 1,
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "updated_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PolicyRule"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "agent_id": "text",
                     *         "policy_name": "text",
                     *         "target_integration": "text",
                     *         "operation": "text",
                     *         "resource_scope": "text",
                     *         "data_classification": "text",
                     *         "policy_effect": "allow",
                     *         "rationale": "text",
                     *         "priority": 1,
                     *         "conditions": {},
                     *         "max_session_ttl": 1,
                     *         "approvals_required": 1,
                     *         "escalate_after_seconds": 1,
                     *         "mode": "enforce",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "is_active": true,
                     *         "policy_version": 1,
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "updated_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PolicyRule"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deactivatePolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "agent_id": "text",
                     *         "policy_name": "text",
                     *         "target_integration": "text",
                     *         "operation": "text",
                     *         "resource_scope": "text",
                     *         "data_classification": "text",
                     *         "policy_effect": "allow",
                     *         "rationale": "text",
                     *         "priority": 1,
                     *         "conditions": {},
                     *         "max_session_ttl": 1,
                     *         "approvals_required": 1,
                     *         "escalate_after_seconds": 1,
                     *         "mode": "enforce",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "is_active": true,
                     *         "policy_version": 1,
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "updated_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PolicyRule"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updatePolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "policy_name": "text",
                 *       "target_integration": "text",
                 *       "operation": "text",
                 *       "resource_scope": "text",
                 *       "data_classification": "public",
                 *       "policy_effect": "allow",
                 *       "rationale": "Refunds above 500 EUR need a person to look first",
                 *       "priority": 1,
                 *       "conditions": {},
                 *       "max_session_ttl": 1,
                 *       "approvals_required": 1,
                 *       "escalate_after_seconds": 1,
                 *       "mode": "enforce"
                 *     }
                 */
                "application/json": {
                    policy_name?: string;
                    target_integration?: string;
                    operation?: string;
                    resource_scope?: string;
                    /** @enum {string} */
                    data_classification?: "public" | "internal" | "confidential" | "restricted";
                    /** @enum {string} */
                    policy_effect?: "allow" | "approval_required" | "deny";
                    /** @example Refunds above 500 EUR need a person to look first */
                    rationale?: string;
                    priority?: number;
                    conditions?: {
                        [key: string]: unknown;
                    } | null;
                    max_session_ttl?: number | null;
                    /** @description How many distinct people must approve a request this rule queues (1 when omitted); any one deny ends it */
                    approvals_required?: number;
                    escalate_after_seconds?: number | null;
                    /**
                     * @description `enforce` (when omitted on create): the rule decides. `shadow`: it never decides; each evaluation it would have decided otherwise is counted in the shadow report
                     * @enum {string}
                     */
                    mode?: "enforce" | "shadow";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "agent_id": "text",
                     *         "policy_name": "text",
                     *         "target_integration": "text",
                     *         "operation": "text",
                     *         "resource_scope": "text",
                     *         "data_classification": "text",
                     *         "policy_effect": "allow",
                     *         "rationale": "text",
                     *         "priority": 1,
                     *         "conditions": {},
                     *         "max_session_ttl": 1,
                     *         "approvals_required": 1,
                     *         "escalate_after_seconds": 1,
                     *         "mode": "enforce",
                     *         "modified_by": "text",
                     *         "modified_at": "2026-11-26T10:15:30.000Z",
                     *         "is_active": true,
                     *         "policy_version": 1,
                     *         "created_at": "2026-11-26T10:15:30.000Z",
                     *         "updated_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PolicyRule"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPolicyRuleVersions: {
        parameters: {
            query: {
                limit: number;
                offset: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "policy_rule_id": "text",
                     *           "version": 1,
                     *           "policy_name": "text",
                     *           "target_integration": "text",
                     *           "operation": "text",
                     *           "resource_scope": "text",
                     *           "data_classification": "text",
                     *           "policy_effect": "allow",
                     *           "rationale": "text",
                     *           "priority": 1,
                     *           "conditions": {},
                     *           "max_session_ttl": 1,
                     *           "approvals_required": 1,
                     *           "escalate_after_seconds": 1,
                     *           "mode": "enforce",
                     *           "modified_by": "text",
                     *           "modified_at": "2026-11-26T10:15:30.000Z",
                     *           "change_summary": "text"
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "total": 1,
                     *         "limit": 1,
                     *         "offset": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["PolicyVersion"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getShadowReport: {
        parameters: {
            query: {
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                from: string | unknown | unknown;
                /** @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC */
                to: string | unknown | unknown;
                agent_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "policy_rule_id": "text",
                     *           "policy_name": "text",
                     *           "would_change": 1,
                     *           "transitions": [
                     *             {
                     *               "from": "allow",
                     *               "to": "allow",
                     *               "count": 1
                     *             }
                     *           ],
                     *           "sample_trace_ids": [
                     *             "text"
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ShadowReportEntry"][];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    testPolicyRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "agent_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                 *       "operation": "text",
                 *       "target_integration": "text",
                 *       "resource_scope": "text",
                 *       "data_classification": "public",
                 *       "include_shadow": true
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    agent_id: string;
                    operation: string;
                    target_integration: string;
                    resource_scope: string;
                    /** @enum {string} */
                    data_classification: "public" | "internal" | "confidential" | "restricted";
                    /** @description Decide as if the shadow rules were enforced; without it (or false) they are ignored, as evaluate ignores them */
                    include_shadow?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "effect": "allow",
                     *       "rule_id": "text",
                     *       "rationale": "text",
                     *       "policy_version": 1
                     *     }
                     */
                    "application/json": components["schemas"]["DryRunResult"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    simulatePolicyChanges: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "from": "2026-11-01T00:00:00Z",
                 *       "to": "2026-11-30",
                 *       "agent_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                 *       "changes": [
                 *         {
                 *           "action": "create",
                 *           "rule": {
                 *             "agent_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                 *             "policy_name": "text",
                 *             "target_integration": "text",
                 *             "operation": "text",
                 *             "resource_scope": "text",
                 *             "data_classification": "public",
                 *             "policy_effect": "allow",
                 *             "rationale": "Refunds above 500 EUR need a person to look first",
                 *             "priority": 1,
                 *             "conditions": {},
                 *             "max_session_ttl": 1,
                 *             "approvals_required": 1,
                 *             "escalate_after_seconds": 1,
                 *             "mode": "enforce",
                 *             "modified_by": "text",
                 *             "modified_at": "2026-11-26T10:15:30.000Z"
                 *           }
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /**
                     * @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC
                     * @example 2026-11-01T00:00:00Z
                     */
                    from: string | unknown | unknown;
                    /**
                     * @description ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC
                     * @example 2026-11-30
                     */
                    to: string | unknown | unknown;
                    /** Format: uuid */
                    agent_id?: string;
                    /** @description Applied in order to the current rules, in memory only */
                    changes: components["schemas"]["RuleChange"][];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "evaluated": 1,
                     *         "changed": 1,
                     *         "transitions": [
                     *           {
                     *             "from": "allow",
                     *             "to": "allow",
                     *             "count": 1
                     *           }
                     *         ],
                     *         "samples": [
                     *           {
                     *             "trace_id": "text",
                     *             "from": "allow",
                     *             "to": "allow",
                     *             "policy_rule_id": "text",
                     *             "change": 1
                     *           }
                     *         ],
                     *         "rules": [
                     *           {
                     *             "policy_rule_id": "text",
                     *             "change": 1,
                     *             "changed": 1
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Simulation"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `export_too_large`, `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "export_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "export_too_large" | "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPolicyRevision: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "revision": "sha256:0000000000000000000000000000000000000000000000000000000000000000"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["RuleSetRevision"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    applyPolicyChanges: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "revision": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
                 *       "change_summary": "text",
                 *       "changes": [
                 *         {
                 *           "action": "create",
                 *           "rule": {
                 *             "agent_id": "7d0c3f4e-5b6a-4c1d-9e8f-2a3b4c5d6e7f",
                 *             "policy_name": "text",
                 *             "target_integration": "text",
                 *             "operation": "text",
                 *             "resource_scope": "text",
                 *             "data_classification": "public",
                 *             "policy_effect": "allow",
                 *             "rationale": "Refunds above 500 EUR need a person to look first",
                 *             "priority": 1,
                 *             "conditions": {},
                 *             "max_session_ttl": 1,
                 *             "approvals_required": 1,
                 *             "escalate_after_seconds": 1,
                 *             "mode": "enforce",
                 *             "modified_by": "text",
                 *             "modified_at": "2026-11-26T10:15:30.000Z"
                 *           }
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /**
                     * @description The revision of the tenant's rules (GET /api/v1/policies/revision); opaque, compare only
                     * @example sha256:0000000000000000000000000000000000000000000000000000000000000000
                     */
                    revision: string;
                    /** @description The change_summary of every version this apply writes */
                    change_summary: string;
                    /** @description Applied in order, in one transaction: all of them or none */
                    changes: components["schemas"]["RuleChange"][];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "revision": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
                     *         "created": [
                     *           "text"
                     *         ],
                     *         "updated": [
                     *           "text"
                     *         ],
                     *         "deleted": [
                     *           "text"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["RuleSetApplied"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "url": "text",
                     *           "events": [
                     *             "text"
                     *           ],
                     *           "is_active": true,
                     *           "description": "text",
                     *           "created_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Webhook"][];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "text",
                 *       "events": [
                 *         "approval.requested"
                 *       ],
                 *       "description": "text"
                 *     }
                 */
                "application/json": {
                    url: string;
                    events: ("approval.requested" | "approval.approved" | "approval.denied" | "approval.expired" | "trace.completed" | "agent.suspended" | "agent.revoked" | "policy.updated" | "audit.event" | "audit.batch" | "approval.escalated" | "budget.threshold")[];
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "url": "text",
                     *         "events": [
                     *           "text"
                     *         ],
                     *         "secret": "text",
                     *         "is_active": true,
                     *         "description": "text",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["CreatedWebhook"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description This `Idempotency-Key` was used for another request. Codes: `idempotency_key_reused`. */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "idempotency_key_reused",
                     *       "message": "This `Idempotency-Key` was used for another request",
                     *       "status": 422,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "idempotency_key_reused";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "url": "text",
                     *         "events": [
                     *           "text"
                     *         ],
                     *         "is_active": true,
                     *         "description": "text",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "text",
                 *       "events": [
                 *         "approval.requested"
                 *       ],
                 *       "is_active": true,
                 *       "description": "text"
                 *     }
                 */
                "application/json": {
                    url?: string;
                    events?: ("approval.requested" | "approval.approved" | "approval.denied" | "approval.expired" | "trace.completed" | "agent.suspended" | "agent.revoked" | "policy.updated" | "audit.event" | "audit.batch" | "approval.escalated" | "budget.threshold")[];
                    is_active?: boolean;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "text",
                     *         "url": "text",
                     *         "events": [
                     *           "text"
                     *         ],
                     *         "is_active": true,
                     *         "description": "text",
                     *         "created_at": "2026-11-26T10:15:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query: {
                status?: "pending" | "delivered" | "retrying" | "failed";
                limit: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "text",
                     *           "event_type": "text",
                     *           "status": "pending",
                     *           "http_status": 1,
                     *           "attempts": 1,
                     *           "created_at": "2026-11-26T10:15:30.000Z",
                     *           "delivered_at": "2026-11-26T10:15:30.000Z",
                     *           "next_retry_at": "2026-11-26T10:15:30.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"][];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "delivered": true,
                     *       "http_status": 1,
                     *       "response_time_ms": 1,
                     *       "error": "text"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookTestResult"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startCheckout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "plan": "starter"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    plan: "starter" | "business";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "text"
                     *     }
                     */
                    "application/json": components["schemas"]["HostedPage"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The payment provider is not configured on this installation. Codes: `billing_not_configured`. */
            501: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "billing_not_configured",
                     *       "message": "The payment provider is not configured on this installation",
                     *       "status": 501,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "billing_not_configured";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openBillingPortal: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "text"
                     *     }
                     */
                    "application/json": components["schemas"]["HostedPage"];
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The payment provider is not configured on this installation. Codes: `billing_not_configured`. */
            501: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "billing_not_configured",
                     *       "message": "The payment provider is not configured on this installation",
                     *       "status": 501,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "billing_not_configured";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "plan": "text",
                     *         "status": "text",
                     *         "current_period_end": "2026-11-26T10:15:30.000Z",
                     *         "cancel_at_period_end": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Subscription"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveBillingEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": true
                     *     }
                     */
                    "application/json": {
                        received: boolean;
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description The payment provider is not configured on this installation. Codes: `billing_not_configured`. */
            501: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "billing_not_configured",
                     *       "message": "The payment provider is not configured on this installation",
                     *       "status": 501,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "billing_not_configured";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getChatSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "mode": null,
                     *         "enabled": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ChatSettings"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replaceChatSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "mode": "incoming_webhook",
                 *       "enabled": true,
                 *       "webhook_url": "text",
                 *       "app_id": "T0123ABCD",
                 *       "app_secret": "8f14e45fceea167a5a36dedd4bea2543",
                 *       "bot_token": "xoxb-1234-5678-abcdef",
                 *       "team_id": "T0123ABCD",
                 *       "channel_id": "T0123ABCD",
                 *       "escalation_channel": "C0456EFGH"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    mode: "incoming_webhook" | "bot";
                    enabled: boolean;
                    webhook_url?: string;
                    /** @example T0123ABCD */
                    app_id?: string;
                    /** @example 8f14e45fceea167a5a36dedd4bea2543 */
                    app_secret?: string;
                    /** @example xoxb-1234-5678-abcdef */
                    bot_token?: string;
                    /** @example T0123ABCD */
                    team_id?: string;
                    /** @example T0123ABCD */
                    channel_id?: string;
                    /**
                     * @description Bot mode: where a request still pending at its escalate_at is posted again. Left out: escalations are not posted.
                     * @example C0456EFGH
                     */
                    escalation_channel?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "mode": null,
                     *         "enabled": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["ChatSettings"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendTestChatMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "delivered": true,
                     *         "error": "text"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: {
                            delivered: boolean;
                            error: string | null;
                        };
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed. Codes: `conflict`. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed",
                     *       "status": 409,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "conflict";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveChatCallback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getNotificationSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "email_enabled": true,
                     *         "reviewer_emails": [
                     *           "text"
                     *         ],
                     *         "escalation_emails": [
                     *           "text"
                     *         ],
                     *         "unconfirmed_emails": [
                     *           "text"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["NotificationSettings"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replaceNotificationSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email_enabled": true,
                 *       "reviewer_emails": [
                 *         "ada@example.com"
                 *       ],
                 *       "escalation_emails": [
                 *         "ada@example.com"
                 *       ]
                 *     }
                 */
                "application/json": {
                    email_enabled: boolean;
                    reviewer_emails: string[];
                    /** @description Told of a request still pending at its escalate_at (rules, escalate_after_seconds). Left out: nobody. */
                    escalation_emails?: string[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "email_enabled": true,
                     *         "reviewer_emails": [
                     *           "text"
                     *         ],
                     *         "escalation_emails": [
                     *           "text"
                     *         ],
                     *         "unconfirmed_emails": [
                     *           "text"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["NotificationSettings"];
                    };
                };
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No credential, or one that is invalid, expired or revoked. Codes: `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "No credential, or one that is invalid, expired or revoked",
                     *       "status": 401,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "unauthorized";
                    };
                };
            };
            /** @description The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too. Codes: `forbidden`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "The credential may not do this",
                     *       "status": 403,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "forbidden";
                        details?: {
                            required_scope: string | null;
                            scopes: string[];
                        } | {
                            required_role: string | null;
                            role: string | null;
                        };
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    confirmEmail: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "text"
                 *     }
                 */
                "application/json": {
                    token: string;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400). Codes: `validation_error`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "validation_error",
                     *       "message": "The request is invalid",
                     *       "status": 400,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "validation_error";
                    };
                };
            };
            /** @description No such resource in this tenant (a malformed id names none either). Codes: `not_found`. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "No such resource in this tenant (a malformed id names none either)",
                     *       "status": 404,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "not_found";
                    };
                };
            };
            /** @description The body is too large (1 MiB), or the export has more rows than the service exports at once. Codes: `payload_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "payload_too_large",
                     *       "message": "The body is too large (1 MiB), or the export has more rows than the service exports at once",
                     *       "status": 413,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "payload_too_large";
                    };
                };
            };
            /** @description Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures. Codes: `rate_limit_exceeded`. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["XRateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["XRateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["XRateLimitReset"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limit_exceeded",
                     *       "message": "Over the rate limit",
                     *       "status": 429,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "rate_limit_exceeded";
                    };
                };
            };
            /** @description The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds. Codes: `service_unavailable`. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "The database (or a provider the operation needs) is unavailable",
                     *       "status": 503,
                     *       "request_id": "0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {string} */
                        error?: "service_unavailable";
                    };
                };
            };
            /** @description Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape. */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    onApprovalRequested: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalRequestedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onApprovalApproved: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalApprovedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onApprovalDenied: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalDeniedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onApprovalExpired: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalExpiredWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onTraceCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TraceCompletedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAgentSuspended: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentSuspendedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAgentRevoked: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentRevokedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPolicyUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PolicyUpdatedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAuditEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuditEventWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAuditBatch: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuditBatchWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onApprovalEscalated: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalEscalatedWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onBudgetThreshold: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BudgetThresholdWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onTest: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery id. */
                "X-Webhook-ID": string;
                /** @description When the attempt was signed (ISO 8601). */
                "X-Webhook-Timestamp": string;
                /** @description `sha256=` + hex HMAC-SHA256 of the raw body with the endpoint secret. */
                "X-Webhook-Signature": string;
                /** @description Standard Webhooks: the delivery id. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix seconds. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the endpoint secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestWebhook"];
            };
        };
        responses: {
            /** @description Received (any 2xx ends the delivery; anything else is retried). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

/** The operations that take an `Idempotency-Key`: the client sends one per call, and repeats it on retries. */
export const IDEMPOTENT_OPERATIONS: readonly string[] = [
  "POST /api/v1/users",
  "POST /api/v1/api-keys",
  "POST /api/v1/evaluate",
  "POST /api/v1/traces/{traceId}/outcome",
  "POST /api/v1/approvals/{id}/approve",
  "POST /api/v1/approvals/{id}/deny",
  "POST /api/v1/grants/{jti}/redeem",
  "POST /api/v1/agents",
  "POST /api/v1/policies",
  "POST /api/v1/webhooks"
];
