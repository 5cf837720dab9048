import { globMatches } from '../policy/glob.js';
import type { HistoryFilter, HistoryTerm } from '../policy/history-operators.js';
import type { ActionRequest, PolicyEffect } from '../policy/matching.js';

/** One evaluation as the history operators see it. */
export interface HistoryEntry {
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
export const entryOf = (atMs: number, request: ActionRequest, context: Record<string, unknown>): HistoryEntry => ({
  atMs,
  operation: request.operation,
  target_integration: request.target_integration,
  resource_scope: request.resource_scope,
  decision: null,
  context,
});

/** Whether `entry` passes a term's filter; one without a decision yet passes no `decision` filter. */
export function passes(filter: HistoryFilter, entry: HistoryEntry): boolean {
  return (
    (filter.operation === undefined || filter.operation === entry.operation) &&
    (filter.target_integration === undefined || filter.target_integration === entry.target_integration) &&
    (filter.resource_scope === undefined || globMatches(filter.resource_scope, entry.resource_scope)) &&
    (filter.decision === undefined || filter.decision === entry.decision)
  );
}

/** A request field, or a `context.` path through own properties (as `var` reads). */
export function fieldOf(entry: HistoryEntry, field: NonNullable<HistoryTerm['field']>): unknown {
  if (!field.startsWith('context.')) return entry[field as 'operation'];
  let value: unknown = entry.context;
  for (const segment of field.split('.').slice(1)) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}
