import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { outbox, type Executor, type OutboxRow } from '@agov/db';

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
  | { kind: 'chat_card'; approvalId: string }
  /** The approval's posted chat card is replaced by its decision or expiry. */
  | { kind: 'chat_card_update'; approvalId: string }
  | { kind: 'approval_expiry'; approvalId: string; at: Date }
  /** Events seq from..to of a trace were recorded: fans out as `audit.event` webhooks. */
  | { kind: 'audit_events'; traceId: string; fromSeq: number; toSeq: number }
  /** One delivery of a webhook to one endpoint; the row is its timer between attempts. */
  | { kind: 'webhook_delivery'; deliveryId: string };

export type EffectKind = Effect['kind'];

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
      return { delivery_id: effect.deliveryId };
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
