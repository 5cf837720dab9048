import { and, asc, count, eq, gte, lte, sql } from 'drizzle-orm';
import { policyRules, shadowDecisions, type PolicyRuleRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import { getAgent } from '../agents/agents.js';
import type { CoreDeps } from '../caches/caches.js';
import type { TimeRange } from '../support/time-range.js';
import { byCountThenDecisions, compareText, type Transition } from './transitions.js';

/** Trace ids the report gives per shadow rule, newest first. */
export const SHADOW_REPORT_SAMPLES = 5;

export interface ShadowReportFilters extends TimeRange {
  agent_id?: string;
}

/** One shadow rule's record in the window: how many decisions it would have changed, and how. */
export interface ShadowReportEntry {
  rule: Pick<PolicyRuleRow, 'id' | 'policyName'>;
  wouldChange: number;
  /** Most frequent first, then by decision names. */
  transitions: Transition[];
  /** Newest first, at most SHADOW_REPORT_SAMPLES. */
  sampleTraceIds: string[];
}

/**
 * Per shadow rule, the decisions recorded in the window (both bounds included) that it would
 * have changed, counted exactly from `shadow_decisions`. Rules that changed none are left out;
 * the rest come most changes first, then by rule id. A rule's history stays after it is
 * promoted or deactivated. An `agent_id` outside the tenant is 404, as when naming it anywhere.
 */
export async function shadowReport(deps: CoreDeps, principal: Principal, filters: ShadowReportFilters): Promise<ShadowReportEntry[]> {
  const { db } = deps.database;
  const inWindow = and(
    eq(shadowDecisions.tenantId, principal.tenantId),
    gte(shadowDecisions.recordedAt, filters.from),
    lte(shadowDecisions.recordedAt, filters.to),
    filters.agent_id === undefined ? undefined : eq(shadowDecisions.agentId, filters.agent_id),
  );
  const ranked = db
    .select({
      ruleId: shadowDecisions.policyRuleId,
      traceId: shadowDecisions.traceId,
      rank: sql<number>`row_number() over (partition by ${shadowDecisions.policyRuleId} order by ${shadowDecisions.recordedAt} desc, ${shadowDecisions.traceId} desc)`.as(
        'rank',
      ),
    })
    .from(shadowDecisions)
    .where(inWindow)
    .as('ranked');
  const [transitions, samples] = await Promise.all([
    db
      .select({
        ruleId: shadowDecisions.policyRuleId,
        policyName: policyRules.policyName,
        from: shadowDecisions.decision,
        to: shadowDecisions.shadowDecision,
        count: count(),
      })
      .from(shadowDecisions)
      .innerJoin(policyRules, eq(policyRules.id, shadowDecisions.policyRuleId))
      .where(inWindow)
      .groupBy(shadowDecisions.policyRuleId, policyRules.policyName, shadowDecisions.decision, shadowDecisions.shadowDecision),
    db
      .select({ ruleId: ranked.ruleId, traceId: ranked.traceId })
      .from(ranked)
      .where(lte(ranked.rank, SHADOW_REPORT_SAMPLES))
      .orderBy(asc(ranked.ruleId), asc(ranked.rank)),
    filters.agent_id === undefined ? undefined : getAgent(deps, principal, filters.agent_id),
  ]);

  const entries = new Map<string, ShadowReportEntry>();
  for (const { ruleId, policyName, from, to, count } of transitions) {
    let entry = entries.get(ruleId);
    if (!entry) {
      entry = { rule: { id: ruleId, policyName }, wouldChange: 0, transitions: [], sampleTraceIds: [] };
      entries.set(ruleId, entry);
    }
    entry.wouldChange += count;
    entry.transitions.push({ from, to, count });
  }
  for (const { ruleId, traceId } of samples) entries.get(ruleId)?.sampleTraceIds.push(traceId);
  for (const entry of entries.values()) entry.transitions.sort(byCountThenDecisions);
  return [...entries.values()].sort((a, b) => b.wouldChange - a.wouldChange || compareText(a.rule.id, b.rule.id));
}
