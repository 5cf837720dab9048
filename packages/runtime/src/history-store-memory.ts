import { MAX_HISTORY_WINDOW_MS, type HistoryCounters, type HistoryEntry, type PolicyEffect } from '@agov/domain';

/**
 * The agents' recent evaluations in this process's memory (embedded mode, one process). An agent
 * not seen since the process started is loaded from its recorded traces first, so a restart
 * forgets nothing. Each call is synchronous once loaded, so it is atomic per agent.
 */
export class MemoryHistory implements HistoryCounters {
  /** Per agent, oldest first. */
  private readonly agents = new Map<string, HistoryEntry[]>();

  async read(
    agentId: string,
    { sinceMs, nowMs, reserve }: { sinceMs: number; nowMs: number; reserve: HistoryEntry | null },
    recorded: (sinceMs: number) => Promise<HistoryEntry[]>,
  ): Promise<HistoryEntry[]> {
    if (!this.agents.has(agentId)) {
      const loaded = await recorded(nowMs - MAX_HISTORY_WINDOW_MS);
      // Another call may have loaded it meanwhile, and reserved since: keep what it holds.
      if (!this.agents.has(agentId)) this.agents.set(agentId, loaded);
    }
    const entries = this.agents.get(agentId)!;
    const kept = entries.findIndex((entry) => entry.atMs > nowMs - MAX_HISTORY_WINDOW_MS);
    if (kept !== 0) entries.splice(0, kept === -1 ? entries.length : kept);
    const found = entries.filter((entry) => entry.atMs > sinceMs);
    if (reserve) entries.push(reserve);
    return found;
  }

  async settle(agentId: string, entry: HistoryEntry, decision: PolicyEffect | null): Promise<void> {
    const entries = this.agents.get(agentId);
    const index = entries?.findLastIndex((held) => held.traceId === entry.traceId) ?? -1;
    if (index === -1) return;
    if (decision) entries![index] = { ...entry, decision };
    else entries!.splice(index, 1);
  }
}
