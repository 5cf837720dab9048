import { and, count, desc, eq, gte } from 'drizzle-orm';
import { approvalRequests, traces, type AgentRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import type { AgentDetailInput } from '../presenters/agents.js';
import { getAgent } from './agents.js';

const RECENT_TRACES = 5;
const DAY_MS = 24 * 60 * 60 * 1000;
const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
const DECISIONS = ['allow', 'approval_required', 'deny'] as const;

/** What the agent detail shows beside the agent, in the shape its presenter reads. */
export type AgentStats = AgentDetailInput['stats'];

export interface AgentWithStats {
  agent: AgentRow;
  stats: AgentStats;
}

/** The agent with what its detail view shows: recent traces, approval counts and decisions of the last day. */
export async function getAgentWithStats(deps: CoreDeps, principal: Principal, id: string): Promise<AgentWithStats> {
  const { db } = deps.database;
  const ofAgent = and(eq(traces.tenantId, principal.tenantId), eq(traces.agentId, id));
  const since = new Date(deps.clock.now().getTime() - DAY_MS);
  const [agent, recentTraces, approvals, decisions, [traceTotal]] = await Promise.all([
    getAgent(deps, principal, id),
    db
      .select({
        id: traces.id,
        requestedOperation: traces.requestedOperation,
        targetIntegration: traces.targetIntegration,
        resourceScope: traces.resourceScope,
        finalOutcome: traces.finalOutcome,
        startedAt: traces.startedAt,
        completedAt: traces.completedAt,
      })
      .from(traces)
      .where(ofAgent)
      .orderBy(desc(traces.startedAt), desc(traces.id))
      .limit(RECENT_TRACES),
    db
      .select({ key: approvalRequests.status, total: count() })
      .from(approvalRequests)
      .where(and(eq(approvalRequests.tenantId, principal.tenantId), eq(approvalRequests.agentId, id)))
      .groupBy(approvalRequests.status),
    db
      .select({ key: traces.decision, total: count() })
      .from(traces)
      .where(and(ofAgent, gte(traces.startedAt, since)))
      .groupBy(traces.decision),
    db.select({ total: count() }).from(traces).where(ofAgent),
  ]);
  return {
    agent,
    stats: {
      recentTraces,
      approvalCounts: tally(APPROVAL_STATUSES, approvals),
      decisionsLast24h: tally(DECISIONS, decisions),
      traceCount: traceTotal?.total ?? 0,
    },
  };
}

/** Counts per key, with a zero for every key that has no rows. */
function tally<K extends string>(keys: readonly K[], rows: readonly { key: string; total: number }[]): Record<K, number> {
  const totals = Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
  for (const row of rows) if ((keys as readonly string[]).includes(row.key)) totals[row.key as K] = row.total;
  return totals;
}
