import { and, asc, eq, lte } from 'drizzle-orm';
import { agents, approvalRequests, type AgentRow, type ApprovalRow, type TraceRow, type Tx } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { NewEvent } from '../audit/chain-events.js';
import { cardUpdatesFor } from './card-updates.js';
import type { CoreDeps } from '../caches/caches.js';
import { AppError, notFound } from '../support/errors.js';
import type { GrantDeps } from '../grants/deps.js';
import { issueGrant } from '../grants/grants.js';
import { recordEffects } from '../outbox/record.js';
import { presentApproval } from '../presenters/approvals.js';
import { appendToTrace, lockTraceOf } from '../traces/chain.js';
import { approvalsAmong, decisionEvents, expiryEvents, VERDICTS, voteEvent, type Verdict } from './decision-events.js';
import { castVote, type VoteInput } from './votes.js';
import { announceApprovalMoved } from './waiters.js';

const inTenant = (tenantId: string, id: string) => and(eq(approvalRequests.id, id), eq(approvalRequests.tenantId, tenantId));

/**
 * Casts a vote on a pending request, and moves it when the vote decides: any deny, or the
 * approve that brings distinct approvers to `approvals_required`. The request is locked while
 * the vote is checked and added, so of any number of concurrent votes each sees the ones before
 * it and exactly one decides; in the same transaction the trace is locked, the vote appended to
 * its chain (and the chain closed when it decides), and the webhook recorded. A vote after
 * `expires_at` is refused and expires the request on the spot, as the sweep would.
 * Approving needs the agent active (`agentOf`), and the deciding approval issues the execution
 * grant. Denying is always allowed.
 */
export async function decideApproval(
  deps: GrantDeps,
  principal: Principal,
  id: string,
  verdict: Verdict,
  input: VoteInput,
): Promise<ApprovalRow> {
  const now = deps.clock.now();
  const decided = await deps.database.db.transaction(async (tx) => {
    const [current] = await tx.select().from(approvalRequests).where(inTenant(principal.tenantId, id)).for('update');
    if (current?.status !== 'pending' || current.expiresAt <= now) return null;
    const agent = await agentOf(tx, current, verdict);
    const vote = await castVote(tx, principal, current, agent, verdict, input, now);
    const votes = [...current.votes, vote];
    if (verdict === 'approve' && approvalsAmong(votes) < current.approvalsRequired) {
      const [approval] = await tx.update(approvalRequests).set({ votes }).where(eq(approvalRequests.id, current.id)).returning();
      const trace = await lockTraceOf(tx, approval!, `approval ${approval!.id}`);
      const { effect } = await appendToTrace(tx, trace, [voteEvent(approval!, vote)], {}, now);
      await recordEffects(tx, principal.tenantId, [effect], now);
      return approval!;
    }
    const { status, finalOutcome, event } = VERDICTS[verdict];
    const [approval] = await tx
      .update(approvalRequests)
      .set({ status, votes, decidedAt: now, approverName: input.approver_name, decisionNote: input.decision_note ?? null })
      .where(eq(approvalRequests.id, current.id))
      .returning();
    if (verdict === 'approve') await issueGrant(deps, tx, approval!, vote.principal, now);
    await announceApprovalMoved(tx, approval!.id);
    const { effect } = await closeTraceOf(tx, approval!, decisionEvents(approval!, vote), finalOutcome, now);
    await recordEffects(
      tx,
      principal.tenantId,
      [effect, { kind: 'webhook', event, data: { approval: presentApproval(approval!) } }, ...(await cardUpdatesFor(tx, approval!.id))],
      now,
    );
    return approval!;
  });
  if (decided) return decided;
  throw await refusal(deps, principal.tenantId, id, now);
}

/**
 * The agent that asked, as separation of duties and approval need it. The row is read
 * `FOR SHARE`, which conflicts with the UPDATE that suspends or revokes it: a lifecycle move
 * waits for this transaction to end, or this read waits for the move to commit and sees its
 * result. So no approval commits for an agent whose suspension committed first; the request
 * stays pending, so it can still be denied or expire.
 */
async function agentOf(tx: Tx, approval: ApprovalRow, verdict: Verdict): Promise<Pick<AgentRow, 'lifecycleState' | 'createdByIdentity'>> {
  const [agent] = await tx
    .select({ lifecycleState: agents.lifecycleState, createdByIdentity: agents.createdByIdentity })
    .from(agents)
    .where(and(eq(agents.id, approval.agentId), eq(agents.tenantId, approval.tenantId)))
    .for('share');
  // Agents are never hard-deleted (revoking keeps the row); a request always has one.
  if (!agent) throw new Error(`agent ${approval.agentId} of approval ${approval.id} is missing`);
  if (verdict === 'approve' && agent.lifecycleState !== 'active') {
    throw new AppError(
      'conflict',
      `agent is ${agent.lifecycleState}; only requests of an active agent can be approved`,
      { lifecycle_state: agent.lifecycleState },
      approval.traceId,
    );
  }
  return agent;
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
  return appendToTrace(tx, await lockTraceOf(tx, approval, `approval ${approval.id}`), events, { finalOutcome, completedAt: now }, now);
}
