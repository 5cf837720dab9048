import { randomUUID } from 'node:crypto';
import type { OutboxRow } from '@agov/db';

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
  /** CONTRACT, "Approval decisions": a request still pending at its `escalate_at`. */
  'approval.escalated',
  /** CONTRACT, "Policy lifecycle decisions": a budget an agent's rules set passed 80 or 100 % of its limit. */
  'budget.threshold',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The envelope every webhook carries (spec "Events → Envelope"). */
export type Envelope = {
  id: string;
  event: WebhookEvent;
  timestamp: string;
  tenant_id: string;
  data: Record<string, unknown>;
};

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
  /** The request is escalated at `at` if still pending (approvals/escalation.ts). */
  | { kind: 'approval_escalation'; approvalId: string; at: Date }
  /** The escalation mail of a request just escalated, one message to each confirmed escalation address. */
  | { kind: 'escalation_email'; approvalId: string }
  /** The escalation's chat message: the escalation channel in bot mode, the incoming webhook otherwise. */
  | { kind: 'escalation_chat'; approvalId: string }
  /** Events seq from..to of a trace were recorded: fans out as `audit.event` webhooks. */
  | { kind: 'audit_events'; traceId: string; fromSeq: number; toSeq: number }
  /**
   * Deliveries of one tenant's webhooks, attempted together as one job: up to
   * DELIVERIES_PER_EFFECT when first sent; a retry is a row of its own, due at its time.
   */
  | { kind: 'webhook_delivery'; deliveryIds: readonly string[] };

export type EffectKind = Effect['kind'];

/** Effects retried on the webhook schedule by their own handler (see `recordFailedAttempt`). */
export type RetriedKind =
  | 'approval_email'
  | 'email_confirmation'
  | 'chat_card'
  | 'chat_card_update'
  | 'escalation_email'
  | 'escalation_chat';

/** A retried effect's failed attempts so far, as its job was given them. */
type Retried = {
  failed_attempts?: number;
};

/**
 * What each kind's outbox row holds, as stored: the relay's claim reads some of it in SQL
 * (`approval_id`, a webhook's `event`), so the names are the column's, not the code's.
 */
export interface EffectPayloads {
  webhook: Envelope;
  approval_email: { approval_id: string /** Recipients already sent to, skipped by a retry. */; recipients_done?: string[] } & Retried;
  email_confirmation: { email: string } & Retried;
  chat_card: { approval_id: string } & Retried;
  chat_card_update: { approval_id: string } & Retried;
  approval_expiry: { approval_id: string };
  approval_escalation: { approval_id: string };
  escalation_email: { approval_id: string /** As for approval mail. */; recipients_done?: string[] } & Retried;
  escalation_chat: { approval_id: string } & Retried;
  audit_events: { trace_id: string; from_seq: number; to_seq: number };
  webhook_delivery: { delivery_ids: readonly string[] };
}

/** An outbox row as its job sees it: which effect, for whom, and what it concerns. */
export interface DueEffect<K extends EffectKind = EffectKind> {
  id: string;
  kind: K;
  tenantId: string;
  payload: EffectPayloads[K];
}

/** An outbox row as read back (from the claim, or from a job's data), its payload not yet typed. */
export interface StoredEffect<K extends EffectKind> {
  id: string;
  kind: K;
  tenantId: string;
  payload: unknown;
}

/**
 * The one place a stored payload is typed: rows are written by `outboxRows`, or with the same
 * shape by the claim and the delivery store (`webhook_delivery` rows), so the kind tells it.
 */
export const dueEffect = <K extends EffectKind>(row: StoredEffect<K>): DueEffect<K> => row as DueEffect<K>;

/** Outbox rows for effects; a webhook gets its envelope (id, event, timestamp, tenant_id, data) now. */
export function outboxRows(tenantId: string, effects: readonly Effect[], now: Date): OutboxRow[] {
  return effects.map((effect) => ({
    id: randomUUID(),
    tenantId,
    kind: effect.kind,
    payload: payloadOf(effect, tenantId, now),
    availableAt: effect.kind === 'approval_expiry' || effect.kind === 'approval_escalation' ? effect.at : now,
    attempts: 0,
    lastError: null,
    createdAt: now,
  }));
}

function payloadOf(effect: Effect, tenantId: string, now: Date): EffectPayloads[EffectKind] {
  switch (effect.kind) {
    case 'webhook':
      return { id: randomUUID(), event: effect.event, timestamp: now.toISOString(), tenant_id: tenantId, data: effect.data };
    case 'audit_events':
      return { trace_id: effect.traceId, from_seq: effect.fromSeq, to_seq: effect.toSeq };
    case 'webhook_delivery':
      return { delivery_ids: effect.deliveryIds };
    case 'email_confirmation':
      return { email: effect.email };
    case 'approval_email':
    case 'chat_card':
    case 'chat_card_update':
    case 'approval_expiry':
    case 'approval_escalation':
    case 'escalation_email':
    case 'escalation_chat':
      return { approval_id: effect.approvalId };
  }
}

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
