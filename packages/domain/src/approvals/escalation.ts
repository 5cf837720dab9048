import { and, eq, isNull, lte } from 'drizzle-orm';
import { approvalRequests } from '@agov/db';
import { ACTORS, type NewEvent } from '../audit/chain-events.js';
import type { CoreDeps } from '../caches/caches.js';
import type { DueEffect } from '../outbox/effects.js';
import { completeEffect, postponeEffect, recordEffects } from '../outbox/record.js';
import { presentApproval } from '../presenters/approvals.js';
import { undecidedFor } from '../support/durations.js';
import { appendToTrace, lockTraceOf } from '../traces/chain.js';

/**
 * The `approval_escalation` effect evaluate records for a request whose rule sets
 * `escalate_after_seconds`, due at its `escalate_at`. The request is escalated by one
 * conditional UPDATE (still pending, not yet escalated, `escalate_at` reached), so of any
 * number of runs exactly one escalates it, and never once it left `pending`; in the same
 * transaction its trace gets an `approval_escalated` event and the webhook, the escalation
 * mail and the chat message are recorded. A run early by this process's clock looks again at
 * `escalate_at`.
 */
export async function escalateOnSchedule(deps: CoreDeps, row: DueEffect<'approval_escalation'>): Promise<void> {
  const { approval_id: approvalId } = row.payload;
  const now = deps.clock.now();
  const escalated = await deps.database.db.transaction(async (tx) => {
    const [approval] = await tx
      .update(approvalRequests)
      .set({ escalatedAt: now })
      .where(
        and(
          eq(approvalRequests.id, approvalId),
          eq(approvalRequests.tenantId, row.tenantId),
          eq(approvalRequests.status, 'pending'),
          isNull(approvalRequests.escalatedAt),
          lte(approvalRequests.escalateAt, now),
        ),
      )
      .returning();
    if (!approval) return false;
    const trace = await lockTraceOf(tx, approval, `approval ${approval.id}`);
    const { effect } = await appendToTrace(tx, trace, [escalationEvent(approval)], {}, now);
    await recordEffects(
      tx,
      row.tenantId,
      [
        effect,
        { kind: 'webhook', event: 'approval.escalated', data: { approval: presentApproval(approval) } },
        // Who is told is read when each is sent, as for the first approval mail and card;
        // the audience rules retire either when the tenant has e-mail or chat switched off.
        { kind: 'escalation_email', approvalId: approval.id },
        { kind: 'escalation_chat', approvalId: approval.id },
      ],
      now,
    );
    await completeEffect(tx, row.id);
    return true;
  });
  if (escalated) return;

  const [approval] = await deps.database.db
    .select({ status: approvalRequests.status, escalateAt: approvalRequests.escalateAt, escalatedAt: approvalRequests.escalatedAt })
    .from(approvalRequests)
    .where(and(eq(approvalRequests.id, approvalId), eq(approvalRequests.tenantId, row.tenantId)));
  if (approval?.status === 'pending' && approval.escalatedAt === null && approval.escalateAt !== null && approval.escalateAt > now)
    return postponeEffect(deps.database.db, row.id, approval.escalateAt);
  await completeEffect(deps.database.db, row.id);
}

/** The audit trail's note that the request was escalated, by the service, still pending. */
function escalationEvent(approval: { id: string; requestedAt: Date; escalateAt: Date | null }): NewEvent {
  return {
    event_type: 'approval_escalated',
    actor_type: 'system',
    actor_name: ACTORS.system,
    description: `Approval request escalated: ${undecidedFor(approval)}`,
    status: 'pending',
    approval_request_id: approval.id,
    metadata: { escalate_at: approval.escalateAt?.toISOString() ?? null },
  };
}
