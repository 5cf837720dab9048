import { and, eq } from 'drizzle-orm';
import { agents, policyRules, type PolicyRuleRow } from '@agov/db';
import type { EvaluationDeps } from './deps.js';
import { notFound } from '../support/errors.js';
import { presentAgent } from '../presenters/agents.js';
import { ConditionBudget } from '../policy/condition-budget.js';
import type { DecisionInputs } from '../caches/decision-inputs.js';
import { firstMatchingRule, orderRules, type ActionRequest, type PolicyEffect } from '../policy/matching.js';

export interface Decision {
  effect: PolicyEffect;
  /** The rule that decided, or null for a default deny or an inactive agent. */
  rule: PolicyRuleRow | null;
  reason: string;
}

/** The agent and its ordered active rules, from the cache or else the database; 404 outside the tenant. */
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
    inputs = { agent, agentView: presentAgent(agent), rules: orderRules(rules) };
    deps.caches.decisionInputs.set(agentId, inputs, ticket);
  }
  // Cached by agent id alone, so the tenant is checked on every read.
  if (inputs.agent.tenantId !== tenantId) throw notFound('Agent');
  return inputs;
}

export const DEFAULT_DENY_REASON = 'No policy rule matched this action; denied by default';

/**
 * The decision for one action: inactive agents are denied, then the first matching rule
 * decides. One ConditionBudget bounds all the JSON Logic this decision runs; a rule whose
 * condition errors or exhausts it denies (fails closed) and is named as the deciding rule,
 * so the trace and the dry run point at the rule to fix.
 */
export function decide(inputs: DecisionInputs, request: ActionRequest, context: Record<string, unknown>): Decision {
  const state = inputs.agent.lifecycleState;
  if (state !== 'active') {
    return { effect: 'deny', rule: null, reason: `Agent is ${state}; ${state} agents do not pass policy evaluation` };
  }
  const conditionData = {
    context,
    agent: inputs.agentView,
    request: {
      agent_id: inputs.agent.id,
      operation: request.operation,
      target_integration: request.target_integration,
      resource_scope: request.resource_scope,
      data_classification: request.data_classification,
    },
  };
  const match = firstMatchingRule(inputs.rules, request, conditionData, new ConditionBudget());
  if (!match) return { effect: 'deny', rule: null, reason: DEFAULT_DENY_REASON };
  const { rule, conditionError } = match;
  if (conditionError !== null) return { effect: 'deny', rule, reason: conditionFailureReason(rule.policyName, conditionError) };
  return { effect: rule.policyEffect, rule, reason: rule.rationale };
}

const conditionFailureReason = (policyName: string, error: string) =>
  `Condition of rule "${policyName}" could not be evaluated: ${error}; denied`;

export interface EvaluationRequest extends ActionRequest {
  agent_id: string;
}

/** The dry run: the same decision evaluate would make, with nothing written. */
export async function dryRun(deps: EvaluationDeps, tenantId: string, request: EvaluationRequest): Promise<Decision> {
  return decide(await loadDecisionInputs(deps, tenantId, request.agent_id), request, {});
}
