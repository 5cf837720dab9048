import {
  attemptOn,
  judge,
  windowIndex,
  type LoginRecord,
  type LoginSchedule,
  type LoginVerdict,
  type RateCounters,
  type WindowQuery,
  type WindowVerdict,
} from '@agov/domain';

interface WindowEntry {
  /** The key's window length: keys of different windows (a minute, an hour) share the map. */
  windowMs: number;
  /** The fixed window `current` counts. */
  index: number;
  previous: number;
  current: number;
}

/**
 * Counters in this process's memory: embedded mode, and each API process's fallback while
 * Redis is unreachable. The same arithmetic as the Redis script (`judge`, `attemptOn`); each
 * call is synchronous inside, so it is atomic per key.
 */
export class MemoryCounters implements RateCounters {
  readonly degraded = false;
  private readonly windows = new Map<string, WindowEntry>();
  private readonly logins = new Map<string, LoginRecord>();
  private sweptAtMs = 0;

  async hit(key: string, query: WindowQuery, counted: boolean): Promise<WindowVerdict> {
    this.sweep(query.nowMs, query.windowMs);
    const index = windowIndex(query.nowMs, query.windowMs);
    const entry = this.windows.get(key);
    const counts =
      entry?.index === index
        ? { previous: entry.previous, current: entry.current }
        : { previous: entry?.index === index - 1 ? entry.current : 0, current: 0 };
    const verdict = judge(counts, query, counted);
    if (verdict.allowed && counted)
      this.windows.set(key, { windowMs: query.windowMs, index, previous: counts.previous, current: counts.current + 1 });
    return verdict;
  }

  async withdraw(key: string, query: WindowQuery): Promise<void> {
    const index = windowIndex(query.nowMs, query.windowMs);
    const entry = this.windows.get(key);
    // The request's fixed window is the entry's current one, or its previous once the next began.
    if (entry?.index === index) entry.current = Math.max(0, entry.current - 1);
    else if (entry?.index === index + 1) entry.previous = Math.max(0, entry.previous - 1);
  }

  async attemptLogin(key: string, nowMs: number, rules: LoginSchedule, enforced: boolean): Promise<LoginVerdict> {
    const { verdict, record } = attemptOn(this.logins.get(key) ?? null, nowMs, rules, enforced);
    this.logins.set(key, record);
    return verdict;
  }

  async forgetLogin(key: string): Promise<void> {
    this.logins.delete(key);
  }

  /** Drops what can no longer count, at most once per window, so memory follows the active keys. */
  private sweep(nowMs: number, windowMs: number): void {
    if (nowMs - this.sweptAtMs < windowMs) return;
    this.sweptAtMs = nowMs;
    for (const [key, entry] of this.windows) if (entry.index < windowIndex(nowMs, entry.windowMs) - 1) this.windows.delete(key);
    for (const [key, record] of this.logins) if (record.expiresAtMs <= nowMs) this.logins.delete(key);
  }
}
