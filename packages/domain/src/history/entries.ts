import { globMatches } from '../policy/glob.js';
import type { HistoryFilter, HistoryTerm, HistoryValues } from '../policy/history-operators.js';
import type { ActionRequest, PolicyEffect } from '../policy/matching.js';

/** One evaluation as the history operators see it. */
export interface HistoryEntry {
  traceId: string;
  /** When it was decided: its trace's `started_at`, in ms. */
  atMs: number;
  operation: string;
  target_integration: string;
  resource_scope: string;
  /** The recorded decision; null for the evaluation being decided, and until its trace is written. */
  decision: PolicyEffect | null;
  context: Record<string, unknown>;
}

/** The entry of an evaluation being decided now. */
export const entryOf = (traceId: string, atMs: number, request: ActionRequest, context: Record<string, unknown>): HistoryEntry => ({
  traceId,
  atMs,
  operation: request.operation,
  target_integration: request.target_integration,
  resource_scope: request.resource_scope,
  decision: null,
  context,
});

/**
 * Each term's value over `entries` at `nowMs`. An entry is in a window of `w` ms when it was
 * decided after `nowMs - w` and not after `nowMs`: exact to the millisecond. The evaluation
 * being decided is among the entries with no decision yet, so it counts in every term whose
 * filter names no `decision`, and in none that does: a decision filter counts decisions made.
 */
export function historyValues(terms: readonly HistoryTerm[], entries: readonly HistoryEntry[], nowMs: number): HistoryValues {
  const values = new Map<string, number>();
  for (const term of terms) {
    const inWindow = entries.filter((entry) => entry.atMs > nowMs - term.windowMs && entry.atMs <= nowMs && passes(term.filter, entry));
    values.set(term.key, termValue(term, inWindow));
  }
  return values;
}

function termValue(term: HistoryTerm, entries: readonly HistoryEntry[]): number {
  if (term.kind === 'recent_count') return entries.length;
  if (term.kind === 'recent_sum') {
    return entries.reduce((sum, entry) => {
      const value = fieldOf(entry, term.field!);
      return sum + (typeof value === 'number' && Number.isFinite(value) ? value : 0);
    }, 0);
  }
  // Distinct as JSON values (1 and "1" differ); an evaluation without the field adds none.
  const distinct = new Set<string>();
  for (const entry of entries) {
    const value = fieldOf(entry, term.field!);
    if (value !== undefined) distinct.add(JSON.stringify(value));
  }
  return distinct.size;
}

function passes(filter: HistoryFilter, entry: HistoryEntry): boolean {
  return (
    (filter.operation === undefined || filter.operation === entry.operation) &&
    (filter.target_integration === undefined || filter.target_integration === entry.target_integration) &&
    (filter.resource_scope === undefined || globMatches(filter.resource_scope, entry.resource_scope)) &&
    (filter.decision === undefined || filter.decision === entry.decision)
  );
}

/** A request field, or a `context.` path through own properties (as `var` reads). */
function fieldOf(entry: HistoryEntry, field: NonNullable<HistoryTerm['field']>): unknown {
  if (!field.startsWith('context.')) return entry[field as 'operation'];
  let value: unknown = entry.context;
  for (const segment of field.split('.').slice(1)) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}
