export { actionDigest, type DigestedAction } from './action-digest.js';
export {
  type Action,
  type CallOptions,
  type ClientOptions,
  createClient,
  type GovernanceClient,
  type QueryParameters,
  type RequestBody,
} from './client.js';
export {
  ActionDenied,
  ApprovalExpired,
  ApprovalRejected,
  ApprovalTimeout,
  type ErrorBody,
  GovernanceError,
  GuardError,
} from './errors.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export {
  GRANT_TYPE,
  type AllowedGrantClaims,
  type ApprovedGrantClaims,
  type GrantClaims,
  type GrantFailure,
  type GrantJwks,
  GrantVerificationError,
  type VerifyGrantOptions,
  verifyGrant,
} from './grants.js';
export type { Schema } from './schemas.js';
export type { ApprovalStatus, Evaluation, GuardOptions, Permit } from './guard.js';
export type { RetryOptions } from './retry.js';
export {
  type AuditExportRow,
  type AuditExportVerification,
  eventHash,
  InvalidExportError,
  type TraceEvent,
  type TraceVerification,
  verifyAuditExport,
  verifyTraceExport,
} from './verify.js';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEnvelope,
  type WebhookFailure,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
