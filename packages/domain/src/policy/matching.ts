import { conditionsHold } from './conditions.js';
import { globMatches } from './glob.js';

export type PolicyEffect = 'allow' | 'approval_required' | 'deny';

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
 * ascending for determinism. Returns a new array.
 */
export function orderRules<T extends MatchableRule>(rules: readonly T[]): T[] {
  return [...rules].sort(
    (a, b) =>
      b.priority - a.priority ||
      RESTRICTIVENESS[b.policyEffect] - RESTRICTIVENESS[a.policyEffect] ||
      a.createdAt.getTime() - b.createdAt.getTime() ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * The first rule in `ordered` (already ordered by orderRules) that matches, or null.
 * Because the order is fixed in advance, the first match is the one the contract says wins.
 */
export function firstMatchingRule<T extends MatchableRule>(ordered: readonly T[], request: ActionRequest, conditionData: object): T | null {
  return ordered.find((rule) => ruleMatches(rule, request, conditionData)) ?? null;
}

// Cheap comparisons first; JSON Logic runs only for rules that match on every field.
function ruleMatches(rule: MatchableRule, request: ActionRequest, conditionData: object): boolean {
  return (
    rule.dataClassification === request.data_classification &&
    matchesExactOrAny(rule.targetIntegration, request.target_integration) &&
    matchesExactOrAny(rule.operation, request.operation) &&
    globMatches(rule.resourceScope, request.resource_scope) &&
    (rule.conditions === null || conditionsHold(rule.conditions, conditionData))
  );
}

const matchesExactOrAny = (ruleValue: string, requested: string) => ruleValue === '*' || ruleValue === requested;
