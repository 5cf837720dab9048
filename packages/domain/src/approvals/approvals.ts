import { and, eq, type SQL } from 'drizzle-orm';
import { agents, approvalRequests, traces, type AgentRow, type ApprovalRow, type ExecutionGrantRow, type TraceRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { grantOf } from '../grants/grants.js';
import { notFound } from '../support/errors.js';
import { talliedPage, type Page, type Paged, type TalliedList } from '../support/pagination.js';
import { approvalTotal, approvalListCounts } from './tallies.js';
import type { ApprovalDeps } from './deps.js';
import { expireApproval } from './decisions.js';

export type ApprovalStatus = ApprovalRow['status'];

export interface ApprovalFilters {
  status?: ApprovalStatus;
  agent_id?: string;
}

export async function listApprovals(
  deps: CoreDeps,
  principal: Principal,
  filters: ApprovalFilters,
  page: Page,
): Promise<Paged<ApprovalRow>> {
  const where: SQL[] = [eq(approvalRequests.tenantId, principal.tenantId)];
  if (filters.status) where.push(eq(approvalRequests.status, filters.status));
  if (filters.agent_id) where.push(eq(approvalRequests.agentId, filters.agent_id));
  const list: TalliedList<typeof approvalRequests> = {
    table: approvalRequests,
    where,
    time: approvalRequests.requestedAt,
    id: approvalRequests.id,
    total: () => approvalTotal(deps, principal.tenantId, filters),
    counts: approvalListCounts(principal.tenantId, filters),
  };
  return talliedPage(deps.database, list, page);
}

/** How many of the tenant's requests have this status; all of them without one. */
export async function countApprovals(deps: CoreDeps, principal: Principal, status?: ApprovalStatus): Promise<number> {
  return approvalTotal(deps, principal.tenantId, status ? { status } : {});
}

/**
 * One request as it stands now. A request read after its `expires_at` that the sweep has
 * not reached yet is expired first, so a client polling it never waits on a dead worker.
 */
export async function getApproval(deps: CoreDeps, principal: Principal, id: string): Promise<ApprovalRow> {
  const approval = await findApproval(deps, principal, id);
  if (approval.status !== 'pending' || approval.expiresAt > deps.clock.now()) return approval;
  await expireApproval(deps, principal.tenantId, id);
  return findApproval(deps, principal, id);
}

/**
 * The request as `getApproval` reads it, once it has left `pending` or after `waitMs` of real
 * time, whichever is first; also when `signal` aborts, or as last read when the process shuts down. The watch is
 * made before each read, so a move committed between the read and the wait still wakes it; a
 * request nobody moves is read again when it falls due, and expires then as any read expires it.
 */
export async function waitForApproval(
  deps: ApprovalDeps,
  principal: Principal,
  id: string,
  waitMs: number,
  signal?: AbortSignal,
): Promise<ApprovalRow> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const watch = deps.approvalWaiters.watch(id);
    try {
      const approval = await getApproval(deps, principal, id);
      const left = deadline - Date.now();
      if (approval.status !== 'pending' || left <= 0 || signal?.aborted || deps.approvalWaiters.closed) return approval;
      const untilDue = approval.expiresAt.getTime() - deps.clock.now().getTime();
      await watch.next(Math.min(left, Math.max(untilDue, 0)), signal);
      // Shutting down, or nobody listening: answer with what was read rather than read again.
      if (deps.approvalWaiters.closed || signal?.aborted) return approval;
    } finally {
      watch.stop();
    }
  }
}

async function findApproval(deps: CoreDeps, principal: Principal, id: string): Promise<ApprovalRow> {
  const [approval] = await deps.database.db
    .select()
    .from(approvalRequests)
    .where(and(eq(approvalRequests.id, id), eq(approvalRequests.tenantId, principal.tenantId)));
  if (!approval) throw notFound('Approval request');
  return approval;
}

/** A request with its execution grant, once approved (what the status poll shows). */
export interface ApprovalWithGrant {
  approval: ApprovalRow;
  grant: ExecutionGrantRow | null;
}

/** The request as read (`getApproval`, `waitForApproval`), with its grant. */
export async function withGrant(deps: CoreDeps, approval: ApprovalRow): Promise<ApprovalWithGrant> {
  return { approval, grant: await grantOf(deps, approval) };
}

/** A request with its grant, the agent that asked and the trace it belongs to (either may be gone). */
export interface ApprovalDetail extends ApprovalWithGrant {
  agent: AgentRow | null;
  trace: TraceRow | null;
}

/** The request with its grant, the agent that asked and the trace it belongs to. */
export async function getApprovalDetail(deps: CoreDeps, principal: Principal, id: string): Promise<ApprovalDetail> {
  const approval = await getApproval(deps, principal, id);
  const { db } = deps.database;
  const [[agent], [trace], grant] = await Promise.all([
    db
      .select()
      .from(agents)
      .where(and(eq(agents.id, approval.agentId), eq(agents.tenantId, principal.tenantId))),
    db
      .select()
      .from(traces)
      .where(and(eq(traces.id, approval.traceId), eq(traces.tenantId, principal.tenantId))),
    grantOf(deps, approval),
  ]);
  return { approval, grant, agent: agent ?? null, trace: trace ?? null };
}
