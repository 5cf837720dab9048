import { POLICY_EFFECTS, type PolicyEffect } from './effects.js';

/**
 * The history operators of conditions (CONTRACT, "Policy lifecycle decisions"): how many of
 * the agent's recorded evaluations in a window (`recent_count`), the sum of a context number
 * over them (`recent_sum`), and how many distinct values of a field they had
 * (`recent_distinct`), optionally of those matching a filter. Their operands are literals,
 * checked when a rule is written, so every term a rule set uses is known before deciding:
 * evaluate fetches exactly those values, and the JSON Logic evaluator only reads them.
 */
export const HISTORY_OPERATORS = ['recent_count', 'recent_sum', 'recent_distinct'] as const;
export type HistoryKind = (typeof HISTORY_OPERATORS)[number];

/** The longest window a history operator may name; the counters keep this much. */
export const MAX_HISTORY_WINDOW_MS = 24 * 3_600_000;

/** The request fields `recent_distinct` counts besides a `context.` path. */
export const HISTORY_FIELDS = ['resource_scope', 'operation', 'target_integration'] as const;
type RequestField = (typeof HISTORY_FIELDS)[number];

export interface HistoryFilter {
  operation?: string;
  target_integration?: string;
  /** A glob, matched as rules match `resource_scope`. */
  resource_scope?: string;
  decision?: PolicyEffect;
}

/** One history value a condition reads. `key` names it in the values fetched before deciding. */
export interface HistoryTerm {
  kind: HistoryKind;
  windowMs: number;
  /** `recent_sum`'s context path, `recent_distinct`'s field; null for `recent_count`. */
  field: RequestField | `context.${string}` | null;
  filter: HistoryFilter;
  key: string;
}

/** The values of a decision's history terms, by `HistoryTerm.key`. */
export type HistoryValues = ReadonlyMap<string, number>;

const WINDOW = /^([1-9][0-9]{0,5})([smh])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
const FILTER_FIELDS = new Set(['operation', 'target_integration', 'resource_scope', 'decision']);
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

export const isHistoryOperator = (operator: string): operator is HistoryKind => (HISTORY_OPERATORS as readonly string[]).includes(operator);

type TermOrProblem = HistoryTerm | { problem: string };

/**
 * Terms by the operand that names them: a rule's conditions are parsed once and kept with its
 * cached rule set, and every evaluation reads their terms again.
 */
const TERMS_BY_OPERAND = new WeakMap<object, { kind: HistoryKind; term: TermOrProblem }>();

/** The term an operator's operand names, or what is wrong with it. */
export function historyTerm(kind: HistoryKind, operand: unknown): TermOrProblem {
  if (typeof operand !== 'object' || operand === null) return termOf(kind, operand);
  const known = TERMS_BY_OPERAND.get(operand);
  if (known?.kind === kind) return known.term;
  const term = termOf(kind, operand);
  TERMS_BY_OPERAND.set(operand, { kind, term });
  return term;
}

function termOf(kind: HistoryKind, operand: unknown): TermOrProblem {
  const args = Array.isArray(operand) ? operand : [operand];
  const [field, window, filter] = kind === 'recent_count' ? [null, args[0], args[1]] : args;
  const most = kind === 'recent_count' ? 2 : 3;
  if (args.length > most || args.length < most - 1) return { problem: `takes ${most - 1} or ${most} arguments` };
  if (kind === 'recent_sum' && !isContextPath(field)) return { problem: 'sums a "context." path' };
  if (kind === 'recent_distinct' && !isContextPath(field) && !(HISTORY_FIELDS as readonly unknown[]).includes(field)) {
    return { problem: `counts one of ${HISTORY_FIELDS.join(', ')} or a "context." path` };
  }
  const windowMs = windowOf(window);
  if (windowMs === null) return { problem: 'needs a window written "<n>s", "<n>m" or "<n>h", of at most 24 h' };
  const checked = filterOf(filter);
  if ('problem' in checked) return checked;
  const term = { kind, windowMs, field: field as HistoryTerm['field'], filter: checked };
  return { ...term, key: JSON.stringify([kind, windowMs, term.field, ...Object.entries(checked).sort()]) };
}

function windowOf(window: unknown): number | null {
  const parts = typeof window === 'string' ? WINDOW.exec(window) : null;
  if (!parts) return null;
  const ms = Number(parts[1]) * UNIT_MS[parts[2] as keyof typeof UNIT_MS];
  return ms <= MAX_HISTORY_WINDOW_MS ? ms : null;
}

function filterOf(filter: unknown): HistoryFilter | { problem: string } {
  if (filter === undefined) return {};
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return { problem: 'takes a filter object' };
  for (const [name, value] of Object.entries(filter)) {
    if (!FILTER_FIELDS.has(name)) return { problem: `filters by ${[...FILTER_FIELDS].join(', ')}, not "${name}"` };
    if (typeof value !== 'string') return { problem: `filters "${name}" by a string` };
    if (name === 'decision' && !(POLICY_EFFECTS as readonly string[]).includes(value)) {
      return { problem: `filters "decision" by one of ${POLICY_EFFECTS.join(', ')}` };
    }
  }
  return filter as HistoryFilter;
}

function isContextPath(path: unknown): path is `context.${string}` {
  if (typeof path !== 'string' || !path.startsWith('context.')) return false;
  const segments = path.split('.').slice(1);
  return segments.every((segment) => segment !== '' && !FORBIDDEN_SEGMENTS.has(segment));
}

/** The history terms a (validated) condition reads, each once. */
export function historyTermsIn(conditions: unknown, into = new Map<string, HistoryTerm>()): Map<string, HistoryTerm> {
  if (Array.isArray(conditions)) {
    for (const item of conditions) historyTermsIn(item, into);
  } else if (typeof conditions === 'object' && conditions !== null) {
    for (const [operator, operand] of Object.entries(conditions)) {
      const term = isHistoryOperator(operator) ? historyTerm(operator, operand) : null;
      if (term && 'key' in term) into.set(term.key, term);
      else historyTermsIn(operand, into);
    }
  }
  return into;
}
