import type { PolicyEffect } from '../policy/matching.js';
import type { HistoryEntry } from './entries.js';

/**
 * Where the agents' recent evaluations live for the history operators: Redis, shared by every
 * API process, or this process's memory (embedded mode). Either keeps each agent's last
 * MAX_HISTORY_WINDOW_MS of entries, and starts from the recorded traces (`recorded`) when it
 * holds nothing for an agent: after Redis lost its data, or when the process started.
 */
export interface HistoryCounters {
  /**
   * The agent's entries decided after `sinceMs`, in one atomic step with reserving `reserve`
   * when given (it then counts for concurrent evaluations at once, as the one being decided).
   * Throws when the store cannot answer; the conditions reading it then fail closed.
   */
  read(
    agentId: string,
    query: { sinceMs: number; nowMs: number; reserve: HistoryEntry | null },
    recorded: (sinceMs: number) => Promise<HistoryEntry[]>,
  ): Promise<HistoryEntry[]>;
  /**
   * A reserved entry once its evaluation is recorded (with its decision), or forgotten when it
   * was not (`decision` null). Never rejects: a failure leaves the entry undecided until the
   * agent's history is next rebuilt from traces.
   */
  settle(agentId: string, entry: HistoryEntry, decision: PolicyEffect | null): Promise<void>;
}
