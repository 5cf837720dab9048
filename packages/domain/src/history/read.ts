import { sql } from 'drizzle-orm';
import type { AgentRow } from '@agov/db';
import type { DecisionInputs } from '../caches/decision-inputs.js';
import { historyTermsIn, type HistoryTerm, type HistoryValues } from '../policy/history-operators.js';
import type { HistoryDeps } from './deps.js';
import type { Admission } from '../limits/counters.js';
import type { LimitsDeps } from '../limits/deps.js';
import type { GatedReading, HistoryQuery } from './counters.js';
import type { HistoryEntry } from './entries.js';
import type { TermReading } from './tally.js';

/**
 * Computed once per cached DecisionInputs (a new one is built whenever the agent or its rules
 * change), so that evaluate knows without work whether an agent's rules read its history.
 * Kept beside the cache rather than in it: `caches/` sits below `policy/`, which owns the terms.
 */
const TERMS = new WeakMap<DecisionInputs, readonly HistoryTerm[]>();

/** The history terms the agent's active rules read, enforced and shadow; usually none. */
export function historyTermsOf(inputs: DecisionInputs): readonly HistoryTerm[] {
  let terms = TERMS.get(inputs);
  if (!terms) {
    const found = new Map<string, HistoryTerm>();
    for (const rule of [...inputs.rules, ...inputs.shadowRules]) if (rule.conditions) historyTermsIn(rule.conditions, found);
    terms = [...found.values()];
    TERMS.set(inputs, terms);
  }
  return terms;
}

/**
 * Each term's value before and with `entry` (see HistoryQuery): one call to the counters,
 * however many terms. Null when the counters cannot answer.
 */
export async function readHistory(deps: HistoryDeps, agent: AgentRow, query: HistoryQuery): Promise<TermReading[] | null> {
  try {
    return await deps.history.read(agent.id, query, (sinceMs) => recordedHistory(deps, agent, sinceMs, query.nowMs));
  } catch {
    return null;
  }
}

/**
 * `readHistory` for an evaluation, with its tenant's limit judged in the same call to the
 * counters while `admission` is still to be judged. When they cannot answer, the limit is
 * judged alone (the rate counters fall back to this process's memory) and the readings are null.
 */
export async function admitWithHistory(
  deps: HistoryDeps & LimitsDeps,
  admission: Admission | null,
  agent: AgentRow,
  query: HistoryQuery,
): Promise<TermReading[] | null> {
  if (!admission) return readHistory(deps, agent, query);
  const { gate, judged } = admission;
  let reading: GatedReading;
  try {
    reading = await deps.history.admit(gate, agent.id, query, (sinceMs) => recordedHistory(deps, agent, sinceMs, query.nowMs));
  } catch {
    reading = { verdict: await deps.rateLimits.counters.hit(gate.key, gate.query, true), readings: null };
  }
  judged(reading.verdict);
  return reading.readings;
}

/** No values: every history operator fails, and its rule denies. */
const UNREADABLE: HistoryValues = new Map();

/** The values the operators read: each term's with the evaluation being decided. */
export const valuesOf = (terms: readonly HistoryTerm[], readings: readonly TermReading[] | null): HistoryValues =>
  readings === null ? UNREADABLE : new Map(terms.map((term, index) => [term.key, readings[index]!.after]));

/**
 * The agent's evaluations recorded after `sinceMs` and up to `nowMs`, from its traces and the
 * context their trace_initiated event (seq 1) recorded, found by the events' primary key;
 * oldest first (`traces_tenant_agent_started`). What the counters rebuild from.
 */
export async function recordedHistory(deps: HistoryDeps, agent: AgentRow, sinceMs: number, nowMs: number): Promise<HistoryEntry[]> {
  const rows = await deps.database.rows<Omit<HistoryEntry, 'context'> & { context: Record<string, unknown> | null }>(sql`
    select (extract(epoch from t.started_at) * 1000)::float8 as "atMs", t.requested_operation as operation,
      t.target_integration, t.resource_scope, t.decision, i.metadata->'context' as context
    from traces t
    join trace_events i on i.trace_id = t.id and i.seq = 1
    where t.tenant_id = ${agent.tenantId} and t.agent_id = ${agent.id}
      and t.started_at > ${new Date(sinceMs).toISOString()}::timestamptz and t.started_at <= ${new Date(nowMs).toISOString()}::timestamptz
    order by t.started_at, t.id`);
  return rows.map((row) => ({ ...row, atMs: Number(row.atMs), context: row.context ?? {} }));
}
