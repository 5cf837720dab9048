import type { ApprovalDeps } from '../approvals/deps.js';
import type { BillingDeps } from '../billing/deps.js';
import type { ChatDeps } from '../chat/deps.js';
import type { EvaluationDeps } from '../evaluation/deps.js';
import type { GrantDeps } from '../grants/deps.js';
import type { IdempotencyDeps } from '../idempotency/deps.js';
import type { IdentityDeps } from '../identity/deps.js';
import type { NotificationDeps } from '../notifications/deps.js';
import type { DatabaseAvailability } from '../support/database-availability.js';
import type { WebhookDeps } from '../webhooks/deps.js';

/**
 * Everything any domain function needs from the outside world, built once by the runtime.
 * Each capability declares the part it uses (its `deps.ts`, or `CoreDeps`); this is their union.
 */
export interface Deps
  extends ApprovalDeps,
    IdentityDeps,
    BillingDeps,
    EvaluationDeps,
    NotificationDeps,
    ChatDeps,
    GrantDeps,
    WebhookDeps,
    IdempotencyDeps {
  readonly webhooks: WebhookDeps['webhooks'];
  /** Whether the database answers, learned from the errors work meets; told once per outage. */
  readonly databaseAvailability: Pick<DatabaseAvailability, 'available' | 'report'>;
}
