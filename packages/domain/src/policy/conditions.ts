import { AppError } from '../support/errors.js';
import { type ConditionBudget, CONDITION_LIMITS } from './condition-budget.js';
import { HISTORY_OPERATORS, historyTerm, isHistoryOperator, type HistoryKind } from './history-operators.js';
import { applyLogic, truthy } from './json-logic.js';

/**
 * Rule conditions are JSON Logic (jsonlogic.com), evaluated against {context, agent, request}.
 * They are checked when written, so evaluation never meets an unknown operator or a path
 * into an object's prototype. `var` paths must be literals: a computed path such as
 * {"var": {"cat": ["__pro", "to__"]}} could otherwise assemble a forbidden name at run time.
 * An expression holds at most CONDITION_LIMITS.nodes JSON values; its evaluation runs
 * under the decision's ConditionBudget (json-logic.ts).
 */
export const OPERATORS = new Set([
  '==',
  '===',
  '!=',
  '!==',
  '>',
  '>=',
  '<',
  '<=',
  '!!',
  '!',
  '%',
  'in',
  'cat',
  'substr',
  '+',
  '*',
  '-',
  '/',
  'min',
  'max',
  'merge',
  'var',
  'missing',
  'missing_some',
  'if',
  '?:',
  'and',
  'or',
  'filter',
  'map',
  'reduce',
  'all',
  'none',
  'some',
  ...HISTORY_OPERATORS,
]);
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

export function assertValidConditions(conditions: unknown, field = 'conditions'): void {
  const problems: string[] = [];
  if (typeof conditions !== 'object' || conditions === null || Array.isArray(conditions)) {
    problems.push('must be a JSON Logic expression object');
  } else if (countNodes(conditions, CONDITION_LIMITS.nodes) > CONDITION_LIMITS.nodes) {
    problems.push(`${field}: the expression has more than ${CONDITION_LIMITS.nodes} nodes (operators, arrays and values)`);
  } else {
    check(conditions, field, problems);
  }
  if (problems.length > 0) {
    throw new AppError('validation_error', `Invalid ${field}: ${problems[0]}`, {
      fields: problems.map((message) => ({ field, message })),
    });
  }
}

function check(node: unknown, path: string, problems: string[]): void {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) check(item, `${path}[${index}]`, problems);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const keys = Object.keys(node);
  if (keys.length !== 1) {
    problems.push(`${path}: an object must hold exactly one operator`);
    return;
  }
  const operator = keys[0]!;
  if (!OPERATORS.has(operator)) {
    problems.push(`${path}: unknown operator "${operator}"`);
    return;
  }
  const operand = (node as Record<string, unknown>)[operator];
  if (operator === 'var') checkVar(operand, `${path}.var`, problems);
  else if (isHistoryOperator(operator)) checkHistory(operator, operand, `${path}.${operator}`, problems);
  else check(operand, `${path}.${operator}`, problems);
}

function checkVar(operand: unknown, path: string, problems: string[]): void {
  const [name, fallback] = Array.isArray(operand) ? operand : [operand];
  if (name !== undefined && name !== null && typeof name !== 'string' && typeof name !== 'number') {
    problems.push(`${path}: the path must be a literal string or number`);
    return;
  }
  if (
    String(name ?? '')
      .split('.')
      .some((segment) => FORBIDDEN_SEGMENTS.has(segment))
  ) {
    problems.push(`${path}: the path may not name __proto__, constructor or prototype`);
  }
  check(fallback, path, problems);
}

/** History operators take literal operands only, so their terms are known before deciding. */
function checkHistory(operator: HistoryKind, operand: unknown, path: string, problems: string[]): void {
  const term = historyTerm(operator, operand);
  if ('problem' in term) problems.push(`${path}: ${term.problem}`);
}

/** The parts of the data conditions see that are not the call's context. */
const NOT_CONTEXT = new Set(['agent', 'request']);

/**
 * Whether a validated expression may read the call's `context`, so that what decides it again
 * can leave the context unread when no rule does. Errs towards yes: a `var` reads it unless
 * its path starts with `agent` or `request` (an item's field inside `some`, `map` and the like
 * counts as context, and only the items' own expression says where they came from); `missing`
 * and `missing_some` always may; a history operator may when its field is a `context.` path.
 */
export function readsContext(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(readsContext);
  if (typeof node !== 'object' || node === null) return false;
  const [[operator, operand]] = Object.entries(node) as [[string, unknown]];
  if (operator === 'var') {
    const [name, fallback] = Array.isArray(operand) ? operand : [operand];
    return typeof name !== 'string' || !NOT_CONTEXT.has(name.split('.')[0]!) || readsContext(fallback);
  }
  if (operator === 'missing' || operator === 'missing_some') return true;
  if (isHistoryOperator(operator)) {
    const term = historyTerm(operator, operand);
    return !('problem' in term) && term.field?.startsWith('context.') === true;
  }
  return readsContext(operand);
}

/** The JSON values in `node` (itself included), counting no further than just past `limit`. */
function countNodes(node: unknown, limit: number): number {
  let count = 1;
  if (typeof node !== 'object' || node === null) return count;
  for (const child of Object.values(node)) {
    count += countNodes(child, limit - count);
    if (count > limit) break;
  }
  return count;
}

/**
 * Whether a validated expression holds on `data`, spending from the decision's `budget`.
 * Throws when it cannot be evaluated (ConditionBudgetExceeded, or an Error); the caller
 * fails closed.
 */
export function conditionsHold(conditions: object, data: object, budget: ConditionBudget): boolean {
  return truthy(applyLogic(conditions, data, budget));
}
