import type { HistoryTerm, HistoryValues } from '../policy/history-operators.js';
import type { PolicyEffect } from '../policy/matching.js';
import type { HistoryEntry } from './entries.js';
import { contributionOf, TermTally } from './tally.js';

/**
 * The history operators over evaluations replayed in the order they were decided (the what-if
 * simulation): each sees the replayed evaluations of its agent before it, with the decisions
 * they got in the replay, and itself, tallied as the live counters tally them. Nothing before
 * the first one replayed is known.
 */
export class HistoryReplay {
  /** Per agent, per term key. */
  private readonly tallies = new Map<string, Map<string, TermTally>>();

  /** The values of `terms` for `entry`, the next evaluation of `agentId`, it included. */
  valuesFor(agentId: string, terms: readonly HistoryTerm[], entry: HistoryEntry): HistoryValues {
    const values = new Map<string, number>();
    for (const term of terms) values.set(term.key, this.tally(agentId, term).read(entry.atMs, contributionOf(term, entry), true).after);
    return values;
  }

  /** `entry` decided: the terms filtered by a decision count it from now on. */
  add(agentId: string, terms: readonly HistoryTerm[], entry: HistoryEntry, decision: PolicyEffect): void {
    const decided = { ...entry, decision };
    for (const term of terms) if (term.filter.decision) this.tally(agentId, term).add(entry.atMs, contributionOf(term, decided));
  }

  private tally(agentId: string, term: HistoryTerm): TermTally {
    const ofAgent = this.tallies.get(agentId) ?? new Map<string, TermTally>();
    this.tallies.set(agentId, ofAgent);
    const tally = ofAgent.get(term.key) ?? new TermTally(term);
    ofAgent.set(term.key, tally);
    return tally;
  }
}
