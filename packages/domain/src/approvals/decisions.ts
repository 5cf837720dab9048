import { and, asc, eq, gt, lte } from 'drizzle-orm';
import { agents, approvalRequests, type Tx, type ApprovalRow, type TraceRow } from '@agov/db';
import { deciderName, type Principal } from '../access/access.js';
import type { NewEvent } from '../audit/chain-events.js';
import { cardUpdatesFor } from './card-updates.js';
import type { CoreDeps } from '../caches/caches.js';
import { AppError, notFound } from '../support/errors.js';
import { recordEffects } from '../outbox/record.js';
import { presentApproval } from '../presenters/approvals.js';
import { appendToTrace, lockTrace } from '../traces/chain.js';
import { decisionEvents, expiryEvents, VERDICTS, type Verdict } from './decision-events.js';
import { announceApprovalMoved } from './waiters.js';

export interface DecisionInput {
  approver_name: string;
  decision_note?: string;
}

const inTenant = (tenantId: string, id: string) => and(eq(approvalRequests.id, id), eq(approvalRequests.tenantId, tenantId));

/**
 * Approves or denies a pending request. The request moves by one conditional UPDATE, so of
 * any number of concurrent decisions exactly one finds it pending; in the same transaction
 * the trace is locked, its chain extended and closed, and the webhook recorded. A decision
 * after `expires_at` is refused and expires the request on the spot, as the sweep would.
 * Approving needs the agent active (`agentMayBeApproved`); denying is always allowed.
 */
export async function decideApproval(
  deps: CoreDeps,
  principal: Principal,
  id: string,
  verdict: Verdict,
  input: DecisionInput,
): Promise<ApprovalRow> {
  const { status, finalOutcome, event } = VERDICTS[verdict];
  const now = deps.clock.now();
  const decided = await deps.database.db.transaction(async (tx) => {
    if (verdict === 'approve') await agentMayBeApproved(tx, principal.tenantId, id, now);
    const [approval] = await tx
      .update(approvalRequests)
      .set({ status, decidedAt: now, approverName: input.approver_name, decisionNote: input.decision_note ?? null })
      .where(and(inTenant(principal.tenantId, id), eq(approvalRequests.status, 'pending'), gt(approvalRequests.expiresAt, now)))
      .returning();
    if (!approval) return null;
    await announceApprovalMoved(tx, approval.id);
    const { effect } = await closeTraceOf(tx, approval, decisionEvents(approval, verdict, deciderName(principal)), finalOutcome, now);
    await recordEffects(
      tx,
      principal.tenantId,
      [effect, { kind: 'webhook', event, data: { approval: presentApproval(approval) } }, ...(await cardUpdatesFor(tx, approval.id))],
      now,
    );
    return approval;
  });
  if (decided) return decided;
  throw await refusal(deps, principal.tenantId, id, now);
}

/**
 * Refuses to approve a pending request of a suspended or revoked agent; the request stays
 * pending, so it can still be denied or expire. The agent row is read `FOR SHARE`, which
 * conflicts with the UPDATE that suspends or revokes it: a lifecycle move waits for this
 * transaction to end, or this read waits for the move to commit and sees its result. So no
 * approval commits for an agent whose suspension committed first. (A check inside the
 * approval's UPDATE would read the agent without a lock, and a refusal would then have to be
 * explained from a later read that might already disagree.) A request that is no longer
 * pending, or overdue, falls through to the UPDATE, which finds nothing, and `refusal` says why.
 */
async function agentMayBeApproved(tx: Tx, tenantId: string, id: string, now: Date): Promise<void> {
  const [found] = await tx
    .select({
      state: agents.lifecycleState,
      status: approvalRequests.status,
      expiresAt: approvalRequests.expiresAt,
      traceId: approvalRequests.traceId,
    })
    .from(approvalRequests)
    .innerJoin(agents, and(eq(agents.id, approvalRequests.agentId), eq(agents.tenantId, approvalRequests.tenantId)))
    .where(inTenant(tenantId, id))
    .for('share', { of: agents });
  if (!found || found.state === 'active' || found.status !== 'pending' || found.expiresAt <= now) return;
  throw new AppError(
    'conflict',
    `agent is ${found.state}; only requests of an active agent can be approved`,
    { lifecycle_state: found.state },
    found.traceId,
  );
}

/** Why a decision found nothing pending to move; a request found overdue is expired first. */
async function refusal(deps: CoreDeps, tenantId: string, id: string, now: Date): Promise<AppError> {
  const [current] = await deps.database.db.select().from(approvalRequests).where(inTenant(tenantId, id));
  if (!current) return notFound('Approval request');
  if (current.status === 'pending' && current.expiresAt <= now) {
    await expireApproval(deps, tenantId, id);
    return new AppError(
      'conflict',
      'approval request has expired',
      { status: 'expired', expires_at: current.expiresAt.toISOString() },
      current.traceId,
    );
  }
  return new AppError('conflict', `approval request is ${current.status}, not pending`, { status: current.status }, current.traceId);
}

/**
 * Expires one request if it is still pending and due: the request becomes `expired`, its
 * trace is closed as `expired`, and `approval.expired` is recorded. Idempotent: a request
 * already decided or expired, or not yet due, is left alone. Returns whether it moved.
 */
export async function expireApproval(deps: CoreDeps, tenantId: string, id: string): Promise<boolean> {
  const now = deps.clock.now();
  return deps.database.db.transaction(async (tx) => {
    const [approval] = await tx
      .update(approvalRequests)
      .set({ status: 'expired' })
      .where(and(inTenant(tenantId, id), eq(approvalRequests.status, 'pending'), lte(approvalRequests.expiresAt, now)))
      .returning();
    if (!approval) return false;
    await announceApprovalMoved(tx, approval.id);
    const { effect } = await closeTraceOf(tx, approval, expiryEvents(approval), 'expired', now);
    await recordEffects(
      tx,
      tenantId,
      [
        effect,
        { kind: 'webhook', event: 'approval.expired', data: { approval: presentApproval(approval) } },
        ...(await cardUpdatesFor(tx, approval.id)),
      ],
      now,
    );
    return true;
  });
}

/** Expires every due request, oldest first, at most `batch` of them; returns how many moved. */
export async function expireDueApprovals(deps: CoreDeps, batch = 500): Promise<number> {
  const due = await deps.database.db
    .select({ id: approvalRequests.id, tenantId: approvalRequests.tenantId })
    .from(approvalRequests)
    .where(and(eq(approvalRequests.status, 'pending'), lte(approvalRequests.expiresAt, deps.clock.now())))
    .orderBy(asc(approvalRequests.expiresAt))
    .limit(batch);
  let expired = 0;
  for (const { id, tenantId } of due) if (await expireApproval(deps, tenantId, id)) expired += 1;
  return expired;
}

async function closeTraceOf(tx: Tx, approval: ApprovalRow, events: readonly NewEvent[], finalOutcome: TraceRow['finalOutcome'], now: Date) {
  const trace = await lockTrace(tx, approval.tenantId, approval.traceId);
  // Written together with its approval by evaluate, in one statement: never absent.
  if (!trace) throw new Error(`trace ${approval.traceId} of approval ${approval.id} is missing`);
  return appendToTrace(tx, trace, events, { finalOutcome, completedAt: now }, now);
}
