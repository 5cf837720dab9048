import type { ConditionBudget } from './condition-budget.js';
import { conditionsHold } from './conditions.js';
import type { PolicyEffect } from './effects.js';
import { globMatches } from './glob.js';

export type { PolicyEffect };

export interface MatchableRule {
  id: string;
  targetIntegration: string;
  operation: string;
  resourceScope: string;
  dataClassification: string;
  policyEffect: PolicyEffect;
  priority: number;
  conditions: Record<string, unknown> | null;
  createdAt: Date;
}

export interface ActionRequest {
  operation: string;
  target_integration: string;
  resource_scope: string;
  data_classification: string;
}

const RESTRICTIVENESS: Record<PolicyEffect, number> = { deny: 2, approval_required: 1, allow: 0 };

/**
 * Evaluation order: priority descending; on equal priority the most restrictive effect
 * (deny > approval_required > allow); then the oldest rule (createdAt ascending); then id
 * ascending for determinism. Negative when `a` is evaluated before `b`; never 0 for two rules.
 */
export const compareRules = (a: MatchableRule, b: MatchableRule): number =>
  b.priority - a.priority ||
  RESTRICTIVENESS[b.policyEffect] - RESTRICTIVENESS[a.policyEffect] ||
  a.createdAt.getTime() - b.createdAt.getTime() ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The rules in evaluation order (`compareRules`), as a new array. */
export function orderRules<T extends MatchableRule>(rules: readonly T[]): T[] {
  return [...rules].sort(compareRules);
}

/** The rule that decides; `conditionError` says why its condition could not be evaluated, and then the rule denies. */
export interface RuleMatch<T> {
  rule: T;
  conditionError: string | null;
}

/**
 * The first rule in `ordered` (already ordered by orderRules) that matches, or null.
 * Because the order is fixed in advance, the first match is the one the contract says wins.
 * Every condition evaluated spends from the one `budget` of this decision. A condition that
 * errors or runs out of budget fails closed: its rule is the match, with the error, so no
 * lower rule (an `allow`, say) can win because a higher one could not be evaluated.
 */
export function firstMatchingRule<T extends MatchableRule>(
  ordered: readonly T[],
  request: ActionRequest,
  conditionData: object,
  budget: ConditionBudget,
): RuleMatch<T> | null {
  for (const rule of ordered) {
    if (!fieldsMatch(rule, request)) continue;
    // A rule without conditions costs nothing more: no evaluator, no budget.
    if (rule.conditions === null) return { rule, conditionError: null };
    try {
      if (conditionsHold(rule.conditions, conditionData, budget)) return { rule, conditionError: null };
    } catch (error) {
      return { rule, conditionError: error instanceof Error ? error.message : String(error) };
    }
  }
  return null;
}

// Cheap comparisons first; JSON Logic runs only for rules that match on every field.
function fieldsMatch(rule: MatchableRule, request: ActionRequest): boolean {
  return (
    rule.dataClassification === request.data_classification &&
    matchesExactOrAny(rule.targetIntegration, request.target_integration) &&
    matchesExactOrAny(rule.operation, request.operation) &&
    globMatches(rule.resourceScope, request.resource_scope)
  );
}

const matchesExactOrAny = (ruleValue: string, requested: string) => ruleValue === '*' || ruleValue === requested;
