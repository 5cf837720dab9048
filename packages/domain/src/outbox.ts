import { randomUUID } from 'node:crypto';
import { outbox, type Executor } from '@agov/db';

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
  | { kind: 'approval_expiry'; approvalId: string; at: Date };

export type OutboxRow = typeof outbox.$inferInsert;

/** Outbox rows for effects; a webhook gets its envelope (id, event, timestamp, tenant_id, data) now. */
export function outboxRows(tenantId: string, effects: readonly Effect[], now: Date): OutboxRow[] {
  return effects.map((effect) => {
    switch (effect.kind) {
      case 'webhook':
        return {
          tenantId,
          kind: effect.kind,
          availableAt: now,
          payload: { id: randomUUID(), event: effect.event, timestamp: now.toISOString(), tenant_id: tenantId, data: effect.data },
        };
      case 'approval_expiry':
        return { tenantId, kind: effect.kind, availableAt: effect.at, payload: { approval_id: effect.approvalId } };
      default:
        return { tenantId, kind: effect.kind, availableAt: now, payload: { approval_id: effect.approvalId } };
    }
  });
}

/**
 * Records effects in the caller's transaction: they exist exactly when the change that causes
 * them commits, so a dead queue or worker delays them but never loses them.
 */
export async function recordEffects(executor: Executor, tenantId: string, effects: readonly Effect[], now: Date): Promise<void> {
  if (effects.length > 0) await executor.insert(outbox).values(outboxRows(tenantId, effects, now));
}
