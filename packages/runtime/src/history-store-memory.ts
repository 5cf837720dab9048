import {
  contributionOf,
  rebuildFromMs,
  tallyOf,
  type TermTally,
  type GatedReading,
  type HistoryCounters,
  type HistoryEntry,
  type HistoryQuery,
  type HistoryTerm,
  type PolicyEffect,
  type RateCounters,
  type RateGate,
  type TermReading,
} from '@agov/domain';

/**
 * The agents' history terms tallied in this process's memory (embedded mode, one process). A
 * term not held since the process started, or since the term first appeared in a rule, is
 * tallied from the recorded traces first, so a restart forgets nothing. Each read is synchronous
 * once its terms are held, so it is atomic per agent.
 */
export class MemoryHistory implements HistoryCounters {
  /** Per agent, per term key. */
  private readonly agents = new Map<string, Map<string, TermTally>>();

  /** `counters`: the process's rate counters, which judge an evaluation's window first. */
  constructor(private readonly counters: RateCounters) {}

  async admit(
    gate: RateGate,
    agentId: string,
    query: HistoryQuery,
    recorded: (sinceMs: number) => Promise<HistoryEntry[]>,
  ): Promise<GatedReading> {
    const verdict = await this.counters.hit(gate.key, gate.query, true);
    if (!verdict.allowed) return { verdict, readings: null };
    // Counted in the window already: a read that fails answers no readings rather than failing the admission.
    return { verdict, readings: await this.read(agentId, query, recorded).catch(() => null) };
  }

  async read(agentId: string, { terms, nowMs, entry, reserve }: HistoryQuery, recorded: (sinceMs: number) => Promise<HistoryEntry[]>) {
    const missing = terms.filter((term) => !this.agents.get(agentId)?.has(term.key));
    if (missing.length > 0) {
      const entries = await recorded(rebuildFromMs(missing, nowMs) - 1);
      const tallies = this.agents.get(agentId) ?? new Map<string, TermTally>();
      this.agents.set(agentId, tallies);
      // Another read may have tallied a term meanwhile, and counted since: keep what it holds.
      for (const term of missing) if (!tallies.has(term.key)) tallies.set(term.key, tallyOf(term, entries));
    }
    const tallies = this.agents.get(agentId)!;
    return terms.map((term): TermReading => tallies.get(term.key)!.read(nowMs, entry && contributionOf(term, entry), reserve));
  }

  async settle(agentId: string, terms: readonly HistoryTerm[], entry: HistoryEntry, decision: PolicyEffect | null): Promise<void> {
    if (!decision) {
      this.agents.delete(agentId);
      return;
    }
    const tallies = this.agents.get(agentId);
    const decided = { ...entry, decision };
    for (const term of terms) if (term.filter.decision) tallies?.get(term.key)?.add(entry.atMs, contributionOf(term, decided));
  }
}
