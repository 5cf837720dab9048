import { and, eq } from 'drizzle-orm';
import { agents, policyRules, type PolicyRuleRow } from '@agov/db';
import type { EvaluationDeps } from './deps.js';
import { notFound } from '../support/errors.js';
import { ConditionBudget } from '../policy/condition-budget.js';
import type { HistoryValues } from '../policy/history-operators.js';
import { entryOf } from '../history/entries.js';
import { historyTermsOf, readHistory, valuesOf } from '../history/read.js';
import type { DecisionInputs } from '../caches/decision-inputs.js';
import { decisionInputsOf } from './decision-inputs.js';
import { compareRules, firstMatchingRule, type ActionRequest, type PolicyEffect, type RuleMatch } from '../policy/matching.js';

export interface Decision {
  effect: PolicyEffect;
  /** The rule that decided, or null for a default deny or an inactive agent. */
  rule: PolicyRuleRow | null;
  reason: string;
}

/** The agent and its ordered active rules (enforced and shadow apart), from the cache or else the database; 404 outside the tenant. */
export async function loadDecisionInputs(deps: EvaluationDeps, tenantId: string, agentId: string): Promise<DecisionInputs> {
  let inputs = deps.caches.decisionInputs.get(agentId);
  if (!inputs) {
    const ticket = deps.caches.decisionInputs.ticket();
    const { db } = deps.database;
    const [[agent], rules] = await Promise.all([
      db.select().from(agents).where(eq(agents.id, agentId)).limit(1),
      db
        .select()
        .from(policyRules)
        .where(and(eq(policyRules.agentId, agentId), eq(policyRules.isActive, true))),
    ]);
    if (!agent) throw notFound('Agent');
    inputs = decisionInputsOf(agent, rules);
    deps.caches.decisionInputs.set(agentId, inputs, ticket);
  }
  // Cached by agent id alone, so the tenant is checked on every read.
  if (inputs.agent.tenantId !== tenantId) throw notFound('Agent');
  return inputs;
}

export const DEFAULT_DENY_REASON = 'No policy rule matched this action; denied by default';

/**
 * The decision for one action: inactive agents are denied, then the first matching enforced
 * rule decides. One ConditionBudget bounds all the JSON Logic this decision runs; a rule whose
 * condition errors or exhausts it denies (fails closed) and is named as the deciding rule,
 * so the trace and the dry run point at the rule to fix. History operators read `history`, the
 * values fetched before deciding (history/read.ts), so deciding stays synchronous.
 */
export function decide(
  inputs: DecisionInputs,
  request: ActionRequest,
  context: Record<string, unknown>,
  history?: HistoryValues,
): Decision {
  const state = inputs.agent.lifecycleState;
  if (state !== 'active') {
    return { effect: 'deny', rule: null, reason: `Agent is ${state}; ${state} agents do not pass policy evaluation` };
  }
  const match = firstMatchingRule(inputs.rules, request, conditionData(inputs, request, context), new ConditionBudget(history));
  return match ? decisionOf(match) : { effect: 'deny', rule: null, reason: DEFAULT_DENY_REASON };
}

/** A decision that a rule made. */
export interface RuleDecision extends Decision {
  rule: PolicyRuleRow;
}

/**
 * What the agent's rules would decide with its shadow rules enforced, when a shadow rule would
 * decide it; null when none would (and at once when the agent has none, or is not active).
 * Only shadow rules ranked above the rule that decided `actual` (all of them after a default
 * deny) can come first: every enforced rule ranked above it did not match. The shadow rules get
 * a ConditionBudget of their own, so that what they spend can never change the real decision.
 */
export function shadowDecision(
  inputs: DecisionInputs,
  request: ActionRequest,
  context: Record<string, unknown>,
  actual: Decision,
  history?: HistoryValues,
): RuleDecision | null {
  const { shadowRules } = inputs;
  if (shadowRules.length === 0 || inputs.agent.lifecycleState !== 'active') return null;
  const decidedBy = actual.rule;
  const below = decidedBy ? shadowRules.findIndex((rule) => compareRules(rule, decidedBy) > 0) : -1;
  const above = below === -1 ? shadowRules : shadowRules.slice(0, below);
  const match = firstMatchingRule(above, request, conditionData(inputs, request, context), new ConditionBudget(history));
  return match && decisionOf(match);
}

/** What conditions see: `{context, agent, request}` (CONTRACT, "Clarifications"). */
const conditionData = (inputs: DecisionInputs, request: ActionRequest, context: Record<string, unknown>) => ({
  context,
  agent: inputs.agentView,
  request: {
    agent_id: inputs.agent.id,
    operation: request.operation,
    target_integration: request.target_integration,
    resource_scope: request.resource_scope,
    data_classification: request.data_classification,
  },
});

function decisionOf({ rule, conditionError }: RuleMatch<PolicyRuleRow>): RuleDecision {
  if (conditionError !== null) return { effect: 'deny', rule, reason: conditionFailureReason(rule.policyName, conditionError) };
  return { effect: rule.policyEffect, rule, reason: rule.rationale };
}

const conditionFailureReason = (policyName: string, error: string) =>
  `Condition of rule "${policyName}" could not be evaluated: ${error}; denied`;

export interface EvaluationRequest extends ActionRequest {
  agent_id: string;
}

export interface DryRunRequest extends EvaluationRequest {
  /** Decide as if the shadow rules were enforced (CONTRACT, "Policy lifecycle decisions"). */
  include_shadow?: boolean;
}

/**
 * The dry run: the same decision evaluate would make, or with `include_shadow` the one its shadow
 * pass finds; nothing written. History operators read the counters as they are, with this
 * request counted as evaluate would count it, and reserve nothing.
 */
export async function dryRun(deps: EvaluationDeps, tenantId: string, request: DryRunRequest): Promise<Decision> {
  const inputs = await loadDecisionInputs(deps, tenantId, request.agent_id);
  const terms = historyTermsOf(inputs);
  let history: HistoryValues | undefined;
  if (terms.length > 0) {
    const entry = entryOf(deps.clock.now().getTime(), request, {});
    history = valuesOf(terms, await readHistory(deps, inputs.agent, { terms, nowMs: entry.atMs, entry, reserve: false }));
  }
  const decision = decide(inputs, request, {}, history);
  return (request.include_shadow && shadowDecision(inputs, request, {}, decision, history)) || decision;
}
