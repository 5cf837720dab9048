import type { PolicyRuleRow } from '@agov/db';
import type { DecisionInputs } from '../caches/decision-inputs.js';
import { historyTerm, isHistoryOperator, type HistoryTerm } from '../policy/history-operators.js';
import type { HistoryDeps } from './deps.js';
import { readHistory } from './read.js';
import type { TermReading } from './tally.js';

/**
 * A limit an enforced rule sets on a history value: a comparison of one history operator with
 * a positive number, either way round, as `{">": [{"recent_sum": ["context.amount", "24h"]}, 10000]}`.
 * The agent detail shows each one's use, and `budget.threshold` fires as it fills.
 */
export interface Budget {
  rule: PolicyRuleRow;
  /** The history operator as the rule writes it, e.g. `{"recent_sum": ["context.amount", "24h"]}`. */
  expression: Record<string, unknown>;
  term: HistoryTerm;
  limit: number;
}

/** A budget's value reaching one of its thresholds with an evaluation. */
export interface BudgetCrossing {
  budget: Budget;
  used: number;
  /** The percentage of the limit reached. */
  threshold: (typeof BUDGET_THRESHOLDS)[number];
}

/** The percentages of a budget's limit at which `budget.threshold` fires. */
export const BUDGET_THRESHOLDS = [80, 100] as const;

const COMPARISONS = new Set(['>', '>=', '<', '<=']);

/** Found once per cached DecisionInputs, as history/read.ts finds the terms. */
const BUDGETS = new WeakMap<DecisionInputs, readonly Budget[]>();

/** The budgets the agent's enforced rules set, in evaluation order; a shadow rule limits nothing. */
export function budgetsOf(inputs: DecisionInputs): readonly Budget[] {
  let budgets = BUDGETS.get(inputs);
  if (!budgets) {
    budgets = inputs.rules.flatMap((rule) => (rule.conditions ? budgetsIn(rule, rule.conditions, []) : []));
    BUDGETS.set(inputs, budgets);
  }
  return budgets;
}

function budgetsIn(rule: PolicyRuleRow, node: unknown, into: Budget[]): Budget[] {
  if (Array.isArray(node)) {
    for (const item of node) budgetsIn(rule, item, into);
  } else if (typeof node === 'object' && node !== null) {
    for (const [operator, operand] of Object.entries(node)) {
      const budget = COMPARISONS.has(operator) ? budgetOf(rule, operand) : null;
      if (budget) into.push(budget);
      else budgetsIn(rule, operand, into);
    }
  }
  return into;
}

function budgetOf(rule: PolicyRuleRow, operand: unknown): Budget | null {
  if (!Array.isArray(operand) || operand.length !== 2) return null;
  const [expression, limit] = typeof operand[1] === 'number' ? operand : [operand[1], operand[0]];
  if (typeof limit !== 'number' || !(limit > 0) || typeof expression !== 'object' || expression === null) return null;
  const [operator, ...others] = Object.entries(expression);
  if (!operator || others.length > 0 || !isHistoryOperator(operator[0])) return null;
  const term = historyTerm(operator[0], operator[1]);
  return 'key' in term ? { rule, expression, term, limit } : null;
}

/**
 * The thresholds an evaluation takes its agent's budgets past: those the terms' values were
 * below just before it (`readings[i].before`, for `terms[i]`) and reach with it. A budget that
 * falls back as its window slides fires again when it next climbs.
 */
export function budgetCrossings(
  budgets: readonly Budget[],
  terms: readonly HistoryTerm[],
  readings: readonly TermReading[],
): BudgetCrossing[] {
  if (budgets.length === 0) return [];
  const byKey = new Map(terms.map((term, index) => [term.key, readings[index]!]));
  return budgets.flatMap((budget) => {
    const { before, after } = byKey.get(budget.term.key)!;
    return BUDGET_THRESHOLDS.filter((percent) => {
      const at = (budget.limit * percent) / 100;
      return before < at && after >= at;
    }).map((threshold) => ({ budget, used: after, threshold }));
  });
}

/** Each budget of the agent with its use now; `used` is null while the counters cannot answer. */
export async function budgetUse(deps: HistoryDeps, inputs: DecisionInputs): Promise<{ budget: Budget; used: number | null }[]> {
  const budgets = budgetsOf(inputs);
  if (budgets.length === 0) return [];
  const terms = budgets.map((budget) => budget.term);
  const readings = await readHistory(deps, inputs.agent, { terms, nowMs: deps.clock.now().getTime(), entry: null, reserve: false });
  return budgets.map((budget, index) => ({ budget, used: readings ? readings[index]!.before : null }));
}
