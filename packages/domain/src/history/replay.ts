import { MAX_HISTORY_WINDOW_MS, type HistoryTerm, type HistoryValues } from '../policy/history-operators.js';
import type { PolicyEffect } from '../policy/matching.js';
import { historyValues, type HistoryEntry } from './entries.js';

/**
 * The history operators over evaluations replayed in the order they were decided (the what-if
 * simulation): each sees the replayed evaluations of its agent before it, with the decisions
 * they got in the replay, and itself. Nothing before the first one replayed is known.
 */
export class HistoryReplay {
  private readonly byAgent = new Map<string, HistoryEntry[]>();

  /** The values of `terms` for `entry`, the next evaluation of `agentId`, it included. */
  valuesFor(agentId: string, terms: readonly HistoryTerm[], entry: HistoryEntry): HistoryValues {
    const entries = this.byAgent.get(agentId) ?? [];
    // Entries come oldest first: those past the longest window can never count again.
    const kept = entries.findIndex((earlier) => earlier.atMs > entry.atMs - MAX_HISTORY_WINDOW_MS);
    if (kept !== 0) entries.splice(0, kept === -1 ? entries.length : kept);
    this.byAgent.set(agentId, entries);
    return historyValues(terms, [...entries, entry], entry.atMs);
  }

  /** `entry` decided: later evaluations of its agent count it. */
  add(agentId: string, entry: HistoryEntry, decision: PolicyEffect): void {
    this.byAgent.get(agentId)?.push({ ...entry, decision });
  }
}
