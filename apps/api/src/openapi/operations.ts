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
    description: 'Approves a pending request: its trace may go ahead. A request that is no longer pending is 409.',
    errors: ['conflict'],
  },
  denyApproval: {
    summary: 'Deny an approval request',
    description: 'Denies a pending request: its trace is blocked. A request that is no longer pending is 409.',
    errors: ['conflict'],
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
  updatePolicyRule: { summary: 'Update a policy rule', description: 'Changes a rule; each change is a new version, kept in its history.' },
  deactivatePolicyRule: {
    summary: 'Deactivate a policy rule',
    description: 'Deactivates a rule (it stops deciding) and answers it; its history is kept.',
  },
  listPolicyRuleVersions: { summary: "List a policy rule's versions", description: 'Every version of a rule, newest first.' },
  testPolicyRules: {
    summary: 'Dry-run the policy',
    description: "Says what the tenant's active rules would decide for an action, without recording anything.",
    errors: ['not_found'],
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
    description: 'Whether approval requests are mailed, and to which reviewers.',
  },
  replaceNotificationSettings: {
    summary: 'Save e-mail notifications',
    description:
      'Replaces both fields. A newly listed address is sent a confirmation link and gets no approval mail until it is confirmed.',
  },
  confirmEmail: {
    summary: "Confirm a reviewer's e-mail address",
    description: 'Confirms an address with the token of the link mailed to it. The token is the credential.',
    errors: ['not_found'],
  },
};
