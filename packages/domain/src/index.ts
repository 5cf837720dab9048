// Wiring: what the runtime builds once and passes to every domain call.
export { systemClock, type Clock } from './support/clock.js';
export { isUuid } from './support/ids.js';
export { taggedSha256 } from './support/sha256.js';
export type { Deps } from './wiring/deps.js';
export type { CoreDeps } from './caches/caches.js';
export { CacheFreshness, missedSince, StaleCaches, type Freshness } from './caches/freshness.js';
export { DatabaseAvailability } from './support/database-availability.js';
export { isDatabaseUnavailable, isStatementTimeout, OVERDUE_STATEMENT_MS } from './support/db-errors.js';
export { StatementBatcher } from './support/statement-batcher.js';
export { clearCaches, createCaches, type Caches, type Invalidation } from './caches/caches.js';
export { announceInvalidations, listenForInvalidations, readInvalidationClock } from './caches/invalidation.js';
export type { Observer } from './support/observer.js';
export type { SendFailure, SendResult } from './support/send-result.js';

// Secrets at rest: the box that seals stored secrets, and their re-encryption under a new key.
export { secretBox, type SecretBox } from './secrets-at-rest/secret-box.js';
export { resealStoredSecrets, secretsStored } from './secrets-at-rest/rotation.js';

// Errors: the spec's error codes and the HTTP status each maps to.
export { AppError, codeToStatus, type ErrorCode } from './support/errors.js';

// Access and identity: who is calling, what they may do, and their accounts and keys.
export { authorize, ROLES, SCOPES, type Access, type Principal } from './access/access.js';
export { bootstrapTenant, issueAdminKey, login, signup, whoAmI, type Bootstrapped } from './identity/accounts.js';
export { createApiKey, deleteApiKey, listApiKeys, principalOfApiKey, rotateApiKey } from './identity/api-keys.js';
export { developmentPrincipal, endSession, principalOfSession } from './identity/sessions.js';
export { createUser, deleteUser, listUsers, updateUser } from './identity/users.js';
export { ACCOUNT_LIMITS } from './identity/passwords.js';

// Rate limits: the sliding window's arithmetic, plan figures, and sign-in throttling.
export type { Admission, RateCounters, RateGate } from './limits/counters.js';
export type { GatedReading, HistoryCounters, HistoryQuery } from './history/counters.js';
export type { HistoryEntry } from './history/entries.js';
export { contributionOf, rebuildFromMs, stepMsOf, stepOf, tallyOf, TermTally, type TermReading } from './history/tally.js';
export { historyTerm, type HistoryTerm } from './policy/history-operators.js';
export {
  attemptOn,
  LOGIN_QUIET_MS,
  PER_ACCOUNT,
  PER_ADDRESS,
  type LoginRecord,
  type LoginSchedule,
  type LoginVerdict,
} from './limits/login-attempts.js';
export { tenantRateLimit, type RateCategory } from './limits/plans.js';
export { judge, windowIndex, type WindowQuery, type WindowVerdict } from './limits/sliding-window.js';

// Agents: the registry, its vocabulary and the lifecycle state machine.
export { createAgent, listAgents, updateAgent } from './agents/agents.js';
export { moveAgent, type LifecycleAction } from './agents/lifecycle.js';
export { getAgentWithStats } from './agents/stats.js';
export {
  AGENT_ENVIRONMENTS,
  AUTHORITY_MODELS,
  AUTONOMY_TIERS,
  DATA_CLASSIFICATIONS,
  DELEGATION_MODELS,
  IDENTITY_MODES,
  LIFECYCLE_STATES,
} from './agents/vocabulary.js';

// Policies: the rule store and the effects a rule can have.
export { POLICY_EFFECTS, type PolicyEffect } from './policy/effects.js';
export {
  createPolicyRule,
  deactivatePolicyRule,
  EDITABLE_RULE_FIELDS,
  getPolicyRule,
  listPolicyRules,
  listPolicyVersions,
  RULE_CREATE_DEFAULTS,
  RULE_MODES,
  updatePolicyRule,
  type PolicyRuleEdit,
} from './policy/rule-store.js';
export { SHADOW_REPORT_SAMPLES, shadowReport } from './policy/shadow-report.js';
export { SIMULATION_SAMPLES, simulate } from './simulation/simulate.js';
export type { DraftChange } from './simulation/draft.js';
export { applyRuleSet, getRuleSetRevision } from './rule-sets/apply.js';

// Evaluation: the decision with its trace, and the dry run that writes nothing.
export { actionDigest, type DigestedAction } from './evaluation/action-digest.js';
export { agentBudgetUse } from './evaluation/budget-use.js';
export { dryRun } from './evaluation/decide.js';
export { decideOffline, OFFLINE_AGENT_FIELDS, type OfflineAgent, type OfflineAgentFields } from './evaluation/offline.js';
export { evaluate } from './evaluation/evaluate.js';
export { evaluationWriter } from './evaluation/evaluation-writer.js';

// Approvals: reading requests, a reviewer's decision, and expiry.
export { countApprovals, getApproval, getApprovalDetail, listApprovals, waitForApproval, withGrant } from './approvals/approvals.js';
export type { ApprovalDeps } from './approvals/deps.js';
export { ApprovalWaiters, listenForApprovalMoves } from './approvals/waiters.js';
export type { Verdict } from './approvals/decision-events.js';
export { decideApproval, expireApproval, expireDueApprovals } from './approvals/decisions.js';
export { expireOnSchedule } from './approvals/scheduled-expiry.js';
export { createDelegation, listDelegations, MAX_DELEGATION_DAYS, revokeDelegation } from './approvals/delegations.js';
export type { DelegationInput, DelegationView } from './approvals/delegations.js';

// Execution grants: the signed proof of an approval (or an allow) a tool checks offline, its keys, and redeeming it.
export type { GrantDeps } from './grants/deps.js';
export { DEFAULT_GRANT_TTL_SECONDS, redeemGrant } from './grants/grants.js';
export { publishedGrantKeys, rotateGrantKey } from './grants/keys.js';
export { grantSettings, saveGrantSettings } from './grants/settings.js';
export { presentGrantKey, presentGrantSettings, presentRedeemedGrant } from './presenters/grants.js';
export { escalateOnSchedule } from './approvals/escalation.js';

// Traces and exports: reading and verifying traces, recording outcomes, bulk export.
export { exportAuditEvents, exportTraces } from './exports/exports.js';
export { csvChunks, jsonArrayChunks } from './exports/formats.js';
export { dayOf, instantOf, timeRange, type TimeRange } from './support/time-range.js';
export { recordOutcome } from './traces/outcome.js';
export { getTrace, listTraces, verifyTrace } from './traces/traces.js';
export { foldTallies } from './support/tallies.js';

// Idempotent retries: a request's first answer, given again to the same request with the same key.
export {
  claimIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_TTL_MS,
  idempotencyKeyProblem,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
  type StoredAnswer,
} from './idempotency/keys.js';

// Webhooks and the outbox: endpoints, deliveries, and the jobs that send them.
export { effectClaim, releaseEffects } from './outbox/claim.js';
export { dueEffect, WEBHOOK_EVENTS, type DueEffect, type EffectKind } from './outbox/effects.js';
export { announceAuditBatches } from './webhooks/audit-batch.js';
export { EndpointBreaker } from './webhooks/breaker.js';
export { deliverWebhooks } from './webhooks/deliver.js';
export { deliveryStore } from './webhooks/delivery-store.js';
export { listWebhookDeliveries, sendTestWebhook, WEBHOOK_DELIVERY_STATUSES } from './webhooks/deliveries.js';
export {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
} from './webhooks/endpoints.js';
export { fanOutAuditEvents } from './webhooks/fan-out.js';
export { deliveryHeaders } from './webhooks/signing.js';
export { blockedAddressReason, type WebhookTargets } from './webhooks/targets.js';
export type { OutboundRequest, OutboundResult, WebhookTransport } from './webhooks/transport.js';

// E-mail: the tenant's notification settings, its reviewers' confirmations, and the mail to them.
export { sendApprovalEmail, sendEscalationEmail } from './notifications/approval-email.js';
export { sendEmailConfirmation } from './notifications/confirmation-email.js';
export { confirmEmail } from './notifications/confirmations.js';
export type { CappedMail, MailMessage, Mailer, UndeliveredMail } from './notifications/mailer.js';
export { getNotificationSettings, saveNotificationSettings } from './notifications/settings.js';

// Chat (Slack): settings, approval cards and their updates, the Test action and the callback.
export { handleChatCallback, type ChatCallback } from './chat/callback.js';
export { postApprovalCard, postEscalationCard, updateApprovalCard } from './chat/card-delivery.js';
export { CHAT_MODES, getChatSettings, putChatSettings, type ChatSettingsInput } from './chat/settings.js';
export { presentChatSettings, presentChatTestResult } from './presenters/chat.js';
export type { ChatFailure, ChatPort, PostedMessage, SlackApi, SlackMessage } from './chat/slack-api.js';
export { sendTestChatMessage } from './chat/test-message.js';

// Billing (Stripe): checkout and portal sessions, the subscription, and the provider's events.
export { receiveProviderEvent, type EventReceipt } from './billing/apply-event.js';
export type { BillingEventReading, EventSubject, SubscriptionChange, SubscriptionEventReading } from './billing/events.js';
export { presentSubscription } from './presenters/billing.js';
export {
  CHECKOUT_PLANS,
  type BillingPort,
  type CheckoutPlan,
  type CheckoutSessionRequest,
  type HostedPage,
  type PaymentProvider,
  type ProviderEventVerifier,
} from './billing/provider.js';
export { openPortal, startCheckout } from './billing/sessions.js';
export { getSubscription } from './billing/status.js';

// Presenters: row → the exact JSON the spec shows, shared by the API and webhook payloads.
export { presentAgent, presentAgentDetail } from './presenters/agents.js';
export { presentApproval, presentApprovalDetail, presentApprovalStatus, presentDelegation } from './presenters/approvals.js';
export {
  presentApiKey,
  presentIssuedApiKey,
  presentLogin,
  presentSignup,
  presentTenant,
  presentUser,
  presentWhoAmI,
} from './presenters/identity.js';
export { presentDryRun, presentEvaluation } from './presenters/evaluation.js';
export { presentNotificationSettings } from './presenters/notifications.js';
export { presentPolicy, presentPolicyVersion, presentShadowReportEntry, presentSimulation } from './presenters/policies.js';
export {
  AUDIT_EXPORT_COLUMNS,
  presentEvent,
  presentTraceDetail,
  presentTraceExport,
  presentTraceListItem,
  presentTraceRecord,
  presentVerification,
  TRACE_EXPORT_COLUMNS,
} from './presenters/traces.js';
export {
  presentCreatedWebhookEndpoint,
  presentWebhookDelivery,
  presentWebhookEndpoint,
  presentWebhookTestResult,
} from './presenters/webhooks.js';
