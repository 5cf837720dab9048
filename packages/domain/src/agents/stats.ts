import { and, desc, eq } from 'drizzle-orm';
import { traces, type AgentRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import type { AgentDetailInput } from '../presenters/agents.js';
import { getAgent } from './agents.js';
import { approvalCounts } from '../approvals/tallies.js';
import { countTraces, traceTotal } from '../traces/tallies.js';
import { DAY_MS } from '../support/time-range.js';

const RECENT_TRACES = 5;
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
  const [agent, recentTraces, approvals, decisions, traceCount] = await Promise.all([
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
    approvalCounts(deps, principal.tenantId, { agent_id: id }),
    countTraces(deps, principal.tenantId, { agent_id: id, from: since }, 'decision'),
    traceTotal(deps, principal.tenantId, { agent_id: id }),
  ]);
  return {
    agent,
    stats: {
      recentTraces,
      approvalCounts: tally(APPROVAL_STATUSES, approvals),
      decisionsLast24h: tally(DECISIONS, decisions),
      traceCount,
    },
  };
}

/** Counts per key, with a zero for every key that has none. */
function tally<K extends string>(keys: readonly K[], counted: ReadonlyMap<string, number>): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, counted.get(key) ?? 0])) as Record<K, number>;
}
