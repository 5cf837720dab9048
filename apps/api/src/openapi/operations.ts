import type { ErrorCode } from '@agov/domain';

/** What the route schemas cannot say about an operation: its words, and the errors its domain code raises. */
export interface OperationText {
  summary: string;
  description: string;
  /** Error codes beyond those every operation of its kind can answer (see document.ts). */
  errors?: readonly ErrorCode[];
}

/** Every operation of the API by operationId; the document refuses to build with one missing. */
export const OPERATIONS: Record<string, OperationText> = {
  getHealth: {
    summary: 'Check health',
    description:
      'For load balancer probes: always 200. `status` is `degraded` when the database does not answer or rate-limit counters are kept in process memory because Redis is unreachable; `degraded` names which. Not counted against any rate limit.',
  },

  signup: {
    summary: 'Sign up',
    description:
      'Creates a tenant, its first user (an admin) and an API key for an agent runtime (its scopes are in the answer), and signs the user in (sets the session cookie). The key is shown only in this answer.',
    errors: ['conflict'],
  },
  login: {
    summary: 'Sign in',
    description:
      'Signs a user in with e-mail and password and sets the session cookie. Repeated failures for one account are throttled (429).',
    errors: ['unauthorized'],
  },
  logout: { summary: 'Sign out', description: 'Ends the session the request was made with and clears its cookie.' },
  getCurrentIdentity: {
    summary: 'Who am I',
    description: 'The tenant and the credential the request was made with: the signed-in user and role, or the API key and its scopes.',
  },

  listUsers: { summary: 'List users', description: "The tenant's users, oldest first." },
  createUser: { summary: 'Create a user', description: 'Adds a user to the tenant with a role.', errors: ['conflict'] },
  updateUser: {
    summary: 'Update a user',
    description: "Changes a user's name, e-mail, password or role. The tenant must keep at least one admin.",
    errors: ['conflict'],
  },
  deleteUser: { summary: 'Delete a user', description: 'Removes a user; the tenant must keep at least one admin.', errors: ['conflict'] },

  listApiKeys: { summary: 'List API keys', description: "The tenant's API keys, without their secrets." },
  createApiKey: {
    summary: 'Create an API key',
    description: 'Issues a key with the given scopes. The key itself (`key`) is shown only in this answer.',
  },
  deleteApiKey: { summary: 'Revoke an API key', description: 'Revokes a key at once: requests made with it are refused with 401.' },
  rotateApiKey: {
    summary: 'Rotate an API key',
    description: 'Issues a new secret for a key, with its name and scopes; the old secret stops working at once.',
  },

  evaluate: {
    summary: 'Evaluate an action',
    description:
      "Decides whether an agent may perform an action: `allow`, `deny`, or `approval_required` (an approval request is opened and its id returned). Every call records a trace with a hash-chained audit trail. Counted against the tenant's `evaluate` rate limit.",
    errors: ['not_found'],
  },

  listTraces: { summary: 'List traces', description: 'Traces newest first, filtered by agent, outcome and time range.' },
  getTrace: { summary: 'Get a trace', description: 'A trace with its audit events, oldest first, and its approval requests.' },
  recordOutcome: {
    summary: 'Record an outcome',
    description:
      'Reports what happened when the agent acted on an allowed or approved decision: `success` or `error`, with optional metadata. A trace takes one outcome; a second one, or one for a blocked or denied trace, is 409.',
    errors: ['conflict'],
  },
  verifyTrace: {
    summary: "Verify a trace's hash chain",
    description: "Recomputes the trace's audit-event hash chain and says whether it is intact, naming the first event that is not.",
  },
  exportTrace: {
    summary: 'Export a trace',
    description: 'The trace, its events and approvals as one JSON file (`Content-Disposition: attachment`), verifiable offline.',
  },
  exportTraces: {
    summary: 'Export traces',
    description: 'Traces started in a time range as CSV, streamed. `X-Total-Count` gives the number of rows.',
    errors: ['export_too_large'],
  },
  exportAudit: {
    summary: 'Export audit events',
    description: 'Audit events in a time range as a JSON array or CSV, streamed. `X-Total-Count` gives the number of rows.',
    errors: ['export_too_large'],
  },

  listApprovals: { summary: 'List approval requests', description: 'Approval requests newest first, filtered by status and agent.' },
  countApprovals: {
    summary: 'Count approval requests',
    description: 'How many approval requests have a status (all of them without one).',
  },
  getApproval: { summary: 'Get an approval request', description: 'An approval request with its agent and its trace.' },
  getApprovalStatus: {
    summary: "Poll an approval request's status",
    description:
      'The status of an approval request, for agents waiting for a decision. With `wait`, answers as soon as the status is not `pending`, or after `wait` seconds with the pending status.',
  },
  approveApproval: {
    summary: 'Approve an approval request',
    description:
      "Casts an approving vote on a pending request. When the approvals of distinct people reach the request's `approvals_required` (1 unless its rule says more), the request is approved and its trace may go ahead; below that it answers 200 still `pending`, with the vote under `votes`. A request that is no longer pending is 409. A request that needs more than one approver refuses a second vote by one person, and any vote by the principal that created the agent or asked, with 409; an API key cannot approve it (403). `on_behalf_of` casts the vote of a reviewer who delegated their votes to the caller (403 without a delegation in force).",
    errors: ['conflict'],
  },
  denyApproval: {
    summary: 'Deny an approval request',
    description:
      'Casts a denying vote on a pending request: any deny ends it denied and its trace is blocked. A request that is no longer pending is 409; the checks on who may vote are those of approve.',
    errors: ['conflict'],
  },
  createDelegation: {
    summary: 'Delegate your votes',
    description:
      'The signed-in reviewer lets another reviewer or admin of the organization vote `on_behalf_of` them from `starts_at` (now when omitted) until `ends_at`, at most 90 days; each such vote names both.',
  },
  listDelegations: {
    summary: 'List delegations',
    description: "The organization's delegations of votes, newest first; `current=true` leaves out those ended or revoked.",
  },
  revokeDelegation: {
    summary: 'Revoke a delegation',
    description: 'Ends a delegation now. Only the reviewer who delegated, or an admin, may; revoking it again changes nothing.',
  },

  fetchJwks: {
    summary: "Get a tenant's grant keys",
    description:
      "The public keys (JWKS) that verify a tenant's execution grants: its current key and retired keys still published, until the last grant each signed expires. No credential; `Cache-Control: public, max-age=300`. An unknown tenant answers an empty set.",
  },
  redeemGrant: {
    summary: 'Redeem an execution grant',
    description:
      "Marks a grant used, once, and records `grant_redeemed` in its trace. Any credential of the grant's tenant. A grant already redeemed (`details.redeemed_at`) or expired (`details.expires_at`) is 409.",
    errors: ['conflict'],
  },
  rotateGrantKey: {
    summary: 'Rotate the grant signing key',
    description:
      "Makes a new key current for signing the tenant's grants. The old key stays in the JWKS while a grant it signed is unexpired.",
  },
  getGrantSettings: {
    summary: 'Get grant settings',
    description: 'Whether evaluate signs an execution grant for every allow, as it does for every approved request.',
  },
  replaceGrantSettings: {
    summary: 'Save grant settings',
    description:
      "Turns grants for allowed actions on or off. On, every allow evaluate decides carries `grant`, signed with the tenant's key and expiring after the allowing rule's max_session_ttl (else 300 s).",
  },

  listAgents: {
    summary: 'List agents',
    description: 'Agents, filtered by environment, lifecycle state, authority model, autonomy tier and a search term.',
  },
  createAgent: { summary: 'Register an agent', description: 'Registers an agent in the `active` state.' },
  getAgent: {
    summary: 'Get an agent',
    description: 'An agent with its recent traces, approval counts and the last 24 hours of decisions.',
  },
  updateAgent: { summary: 'Update an agent', description: "Changes any of an agent's fields." },
  suspendAgent: {
    summary: 'Suspend an agent',
    description: 'Suspends an active agent: its evaluations are denied until it is reactivated. A move its state does not allow is 409.',
    errors: ['conflict'],
  },
  revokeAgent: {
    summary: 'Revoke an agent',
    description: 'Revokes an agent for good: its evaluations are denied. A move its state does not allow is 409.',
    errors: ['conflict'],
  },
  reactivateAgent: {
    summary: 'Reactivate an agent',
    description: 'Reactivates a suspended agent. A move its state does not allow is 409.',
    errors: ['conflict'],
  },

  listPolicyRules: {
    summary: 'List policy rules',
    description: 'Policy rules, filtered by agent, effect, data classification, activity and a search term.',
  },
  createPolicyRule: {
    summary: 'Create a policy rule',
    description: "Adds a rule to an agent's policy, at version 1. `conditions` is a JSON Logic expression over the evaluated action.",
    errors: ['not_found'],
  },
  getPolicyRule: { summary: 'Get a policy rule', description: 'A policy rule at its current version.' },
  updatePolicyRule: {
    summary: 'Update a policy rule',
    description:
      'Changes a rule; each change is a new version, kept in its history. Switching `mode` from `shadow` to `enforce` promotes a shadow rule.',
  },
  deactivatePolicyRule: {
    summary: 'Deactivate a policy rule',
    description: 'Deactivates a rule (it stops deciding) and answers it; its history is kept.',
  },
  listPolicyRuleVersions: { summary: "List a policy rule's versions", description: 'Every version of a rule, newest first.' },
  testPolicyRules: {
    summary: 'Dry-run the policy',
    description:
      "Says what the tenant's active rules would decide for an action, without recording anything. Shadow rules are ignored unless `include_shadow` is true; then they decide as if enforced.",
    errors: ['not_found'],
  },
  getShadowReport: {
    summary: 'Report what shadow rules would have changed',
    description:
      'Per shadow rule, the evaluations recorded between `from` and `to` (both included) whose decision it would have changed: how many, from which decision to which, and up to 5 of their traces, newest first. Rules that would have changed nothing are left out; the rest come most changes first, then by rule id. An `agent_id` of no agent of the tenant is 404.',
    errors: ['not_found'],
  },
  simulatePolicyChanges: {
    summary: 'Simulate rule changes over recorded traffic',
    description:
      'Re-decides every evaluation recorded between `from` and `to` (both included; of one agent with `agent_id`) under the current enforced rules with `changes` applied in order, each agent in the state its trace recorded (an agent suspended then stays denied), and says how many decisions would change: by transition, by the rule deciding under the draft, with up to 10 traces per transition, oldest first. Nothing is written. Changes are checked as their endpoints check them: 400 for an invalid condition or, with `agent_id`, a rule of another agent; 404 for an agent or rule not of the tenant. Over `SIMULATE_MAX_EVALUATIONS` (1 000 000) recorded evaluations is 413 `export_too_large` with `details: {total, limit}`, before anything is re-decided.',
    errors: ['not_found', 'export_too_large'],
  },
  getPolicyRevision: {
    summary: "Get the revision of the tenant's rules",
    description:
      'An opaque digest over every rule of the tenant, active or not: its id, version and whether it is active. Any create, update or delete changes it. `POST /api/v1/policies/apply` takes it as its optimistic lock.',
  },
  applyPolicyChanges: {
    summary: 'Apply a change set to the rules in one transaction',
    description:
      "Makes `changes` (the shape `POST /api/v1/policies/simulate` takes) live, all of them or none. Each is checked as its endpoint checks it: 400 naming the field (e.g. `changes[2].rule.conditions`), 404 for an agent or rule not of the tenant. If the tenant's rules are no longer at `revision`, 409 `conflict` with `details: {revision}` (the current one) and nothing is written; of concurrent applies against one revision exactly one succeeds. Each change is written as its endpoint writes it (a new version, `policy.updated`), the new versions' `change_summary` being the one given. Answers the new revision and the ids created, updated and deleted, in the order of their changes.",
    errors: ['not_found', 'conflict'],
  },

  createWebhook: {
    summary: 'Create a webhook endpoint',
    description: 'Subscribes a URL to events. The signing secret (`secret`) is shown only in this answer.',
  },
  listWebhooks: { summary: 'List webhook endpoints', description: "The tenant's webhook endpoints." },
  getWebhook: { summary: 'Get a webhook endpoint', description: 'A webhook endpoint, without its secret.' },
  updateWebhook: {
    summary: 'Update a webhook endpoint',
    description: "Changes an endpoint's URL, events, description or whether it is active.",
  },
  deleteWebhook: { summary: 'Delete a webhook endpoint', description: 'Deletes an endpoint together with its delivery history.' },
  listWebhookDeliveries: {
    summary: "List an endpoint's deliveries",
    description: 'Deliveries newest first, filtered by status, capped by `limit`.',
  },
  sendTestWebhook: {
    summary: 'Send a test event',
    description: 'Sends a `test` event to the endpoint now, even an inactive one, and reports what it answered. No delivery is recorded.',
  },

  startCheckout: {
    summary: 'Start a checkout',
    description: "Opens the payment provider's checkout for a plan and answers the page to send the user to.",
    errors: ['conflict', 'billing_not_configured'],
  },
  openBillingPortal: {
    summary: 'Open the billing portal',
    description: "Opens the payment provider's portal, where the tenant changes or cancels its plan.",
    errors: ['conflict', 'billing_not_configured'],
  },
  getSubscription: { summary: 'Get the subscription', description: "The tenant's plan and its status." },
  receiveBillingEvent: {
    summary: "Receive the payment provider's events",
    description:
      'Called by Stripe, not by clients: the `Stripe-Signature` header over the exact body admits the event. Not counted against any rate limit.',
    errors: ['validation_error', 'billing_not_configured'],
  },

  getChatSettings: {
    summary: 'Get the chat integration',
    description:
      "The tenant's Slack integration, without its secrets. A tenant that never saved settings reads `{mode: null, enabled: false}`.",
  },
  replaceChatSettings: {
    summary: 'Save the chat integration',
    description: "Replaces the tenant's Slack integration: an incoming webhook, or a bot that posts approval cards with buttons.",
  },
  sendTestChatMessage: {
    summary: 'Send a test chat message',
    description: 'Posts a test message through the saved integration and reports whether it arrived.',
    errors: ['conflict'],
  },
  receiveChatCallback: {
    summary: "Receive a chat card's button press",
    description:
      "Called by Slack, not by clients, when an approval card's button is pressed; the signature over the exact body (at most 64 KiB) admits it. Answers 200 with an empty body.",
    errors: ['validation_error', 'forbidden', 'payload_too_large'],
  },

  getNotificationSettings: {
    summary: 'Get e-mail notifications',
    description: 'Whether approval requests are mailed, to which reviewers, and to whom when they are escalated.',
  },
  replaceNotificationSettings: {
    summary: 'Save e-mail notifications',
    description:
      'Replaces every field (escalation_emails left out is an empty list). A newly listed address is sent a confirmation link and gets no approval or escalation mail until it is confirmed.',
  },
  confirmEmail: {
    summary: "Confirm a reviewer's e-mail address",
    description: 'Confirms an address with the token of the link mailed to it. The token is the credential.',
    errors: ['not_found'],
  },
};
