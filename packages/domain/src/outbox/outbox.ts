import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { outbox, type Executor, type OutboxRow } from '@agov/db';
import { afterAttempt, type AttemptOutcome } from './retry.js';

export const WEBHOOK_EVENTS = [
  'approval.requested',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'trace.completed',
  'agent.suspended',
  'agent.revoked',
  'policy.updated',
  'audit.event',
  'audit.batch',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Something that must happen after a change commits. Payloads carry ids, or the event's data. */
export type Effect =
  | { kind: 'webhook'; event: WebhookEvent; data: Record<string, unknown> }
  | { kind: 'approval_email'; approvalId: string }
  /** A confirmation link to a reviewer address the tenant listed (lower-cased). */
  | { kind: 'email_confirmation'; email: string }
  | { kind: 'chat_card'; approvalId: string }
  /** The approval's posted chat card is replaced by its decision or expiry. */
  | { kind: 'chat_card_update'; approvalId: string }
  | { kind: 'approval_expiry'; approvalId: string; at: Date }
  /** Events seq from..to of a trace were recorded: fans out as `audit.event` webhooks. */
  | { kind: 'audit_events'; traceId: string; fromSeq: number; toSeq: number }
  /**
   * Deliveries of one tenant's webhooks, attempted together as one job: up to
   * DELIVERIES_PER_EFFECT when first sent; a retry is a row of its own, due at its time.
   */
  | { kind: 'webhook_delivery'; deliveryIds: readonly string[] };

export type EffectKind = Effect['kind'];

/**
 * Deliveries first sent together, in one job: their reads and records share statements, and
 * the queue handles one job instead of many. Small enough that one slow endpoint holds up few.
 */
export const DELIVERIES_PER_EFFECT = 32;

/** The effects that send these deliveries: one per DELIVERIES_PER_EFFECT of them. */
export function deliveryEffects(deliveryIds: readonly string[]): Effect[] {
  const effects: Effect[] = [];
  for (let start = 0; start < deliveryIds.length; start += DELIVERIES_PER_EFFECT)
    effects.push({ kind: 'webhook_delivery', deliveryIds: deliveryIds.slice(start, start + DELIVERIES_PER_EFFECT) });
  return effects;
}

/** An outbox row as a job sees it: which effect, for whom, and the ids it concerns. */
export type DueEffect = Pick<OutboxRow, 'id' | 'tenantId' | 'payload'>;

/** Outbox rows for effects; a webhook gets its envelope (id, event, timestamp, tenant_id, data) now. */
export function outboxRows(tenantId: string, effects: readonly Effect[], now: Date): OutboxRow[] {
  return effects.map((effect) => ({
    id: randomUUID(),
    tenantId,
    kind: effect.kind,
    payload: payloadOf(effect, tenantId, now),
    availableAt: effect.kind === 'approval_expiry' ? effect.at : now,
    attempts: 0,
    lastError: null,
    createdAt: now,
  }));
}

function payloadOf(effect: Effect, tenantId: string, now: Date): Record<string, unknown> {
  switch (effect.kind) {
    case 'webhook':
      return { id: randomUUID(), event: effect.event, timestamp: now.toISOString(), tenant_id: tenantId, data: effect.data };
    case 'audit_events':
      return { trace_id: effect.traceId, from_seq: effect.fromSeq, to_seq: effect.toSeq };
    case 'webhook_delivery':
      return { delivery_ids: effect.deliveryIds };
    case 'email_confirmation':
      return { email: effect.email };
    default:
      return { approval_id: effect.approvalId };
  }
}

/**
 * Records effects in the caller's transaction: they exist exactly when the change that causes
 * them commits, so a dead queue or worker delays them but never loses them.
 */
export async function recordEffects(executor: Executor, tenantId: string, effects: readonly Effect[], now: Date): Promise<void> {
  if (effects.length > 0) await executor.insert(outbox).values(outboxRows(tenantId, effects, now));
}

/** The effect is done: its row goes, so the table holds only work still to do. */
export async function completeEffect(executor: Executor, id: string): Promise<void> {
  await executor.delete(outbox).where(eq(outbox.id, id));
}

/** The effect is due again at `at` (a retry, or a time not yet reached). */
export async function postponeEffect(executor: Executor, id: string, at: Date, lastError: string | null = null): Promise<void> {
  await executor.update(outbox).set({ availableAt: at, lastError }).where(eq(outbox.id, id));
}

/**
 * Failed attempts at an effect retried like a webhook (e-mail, chat cards), as its job was
 * given them. Kept in the payload rather than read from `attempts`, which counts claims, and
 * so also the claims handed back while the queue was unreachable: those would use up the
 * retries of an effect never tried.
 */
const failedAttemptsOf = (effect: Pick<DueEffect, 'payload'>): number =>
  (effect.payload as { failed_attempts?: number }).failed_attempts ?? 0;

/** The row as this run of the job found it: gone or moved on means another run finished or recorded this attempt. */
const asGiven = (effect: DueEffect) =>
  and(eq(outbox.id, effect.id), sql`coalesce((${outbox.payload}->>'failed_attempts')::int, 0) = ${failedAttemptsOf(effect)}`);

/** Whether this attempt is still to be made: false for a stray duplicate of a run that already made it. */
export async function isAttemptDue(executor: Executor, effect: DueEffect): Promise<boolean> {
  return (await executor.select({ id: outbox.id }).from(outbox).where(asGiven(effect))).length > 0;
}

/**
 * Records a failed attempt on the webhook schedule: due again after the next delay, or given
 * up (the row retired) after the last. Only the run that was given this attempt records it.
 * `progress` joins the payload, for the next attempt to skip what this one did.
 */
export async function recordFailedAttempt(
  executor: Executor,
  effect: DueEffect,
  failure: { error: string; retryDelaysMs: readonly number[]; now: Date; progress?: Record<string, unknown> },
): Promise<AttemptOutcome> {
  const next = afterAttempt(failedAttemptsOf(effect), false, failure.retryDelaysMs, failure.now);
  if (next.nextRetryAt === null) await executor.delete(outbox).where(asGiven(effect));
  else
    await executor
      .update(outbox)
      .set({
        payload: { ...effect.payload, ...failure.progress, failed_attempts: next.attempts },
        availableAt: next.nextRetryAt,
        lastError: failure.error,
      })
      .where(asGiven(effect));
  return next;
}
