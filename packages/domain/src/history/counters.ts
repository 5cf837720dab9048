import type { RateGate } from '../limits/counters.js';
import type { WindowVerdict } from '../limits/sliding-window.js';
import type { HistoryTerm } from '../policy/history-operators.js';
import type { PolicyEffect } from '../policy/matching.js';
import type { HistoryEntry } from './entries.js';
import type { TermReading } from './tally.js';

/** What one read of the counters asks: the terms, the instant, and the evaluation being decided if any. */
export interface HistoryQuery {
  terms: readonly HistoryTerm[];
  nowMs: number;
  /** Counted in each `after`; null for a read of the values alone (the agent detail). */
  entry: HistoryEntry | null;
  /** Whether the counters keep `entry` at once, so that concurrent evaluations count it (evaluate; not the dry run). */
  reserve: boolean;
}

/** A read admitted by a rate-limit window first: `readings` null when the window refused it. */
export interface GatedReading {
  verdict: WindowVerdict;
  readings: TermReading[] | null;
}

/**
 * Where the agents' history terms are tallied, per term and step of its window (history/tally.ts):
 * Redis, shared by every API process, or this process's memory (embedded mode). A term the
 * counters do not hold for an agent (it is new, Redis lost its data, the process started) is
 * rebuilt first from the recorded traces (`recorded`), so that a budget is never spent twice.
 */
export interface HistoryCounters {
  /**
   * Each term's value before and with `entry`, in one atomic step with keeping it when
   * `reserve` is set. Throws when the store cannot answer; the conditions reading it then fail closed.
   */
  read(agentId: string, query: HistoryQuery, recorded: (sinceMs: number) => Promise<HistoryEntry[]>): Promise<TermReading[]>;
  /**
   * `read`, judged first by the rate-limit window `gate` in the same atomic step (one round
   * trip in Redis): a refused evaluation reads and keeps nothing and is not counted in the
   * window; an admitted one is counted there as `RateCounters.hit` counts it. Throws, having
   * counted nothing, when the store cannot answer.
   */
  admit(
    gate: RateGate,
    agentId: string,
    query: HistoryQuery,
    recorded: (sinceMs: number) => Promise<HistoryEntry[]>,
  ): Promise<GatedReading>;
  /**
   * A reserved entry once its evaluation is recorded: the terms filtered by `decision` count it
   * now. When it was not recorded (`decision` null) the agent's terms are dropped, to be rebuilt
   * from the traces at the next read. Never rejects: should the store not answer, the next
   * rebuild reads the entry from its trace.
   */
  settle(agentId: string, terms: readonly HistoryTerm[], entry: HistoryEntry, decision: PolicyEffect | null): Promise<void>;
}
