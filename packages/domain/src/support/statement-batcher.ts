import { isDatabaseUnavailable } from './db-errors.js';

interface Waiting<Item, Result> {
  item: Item;
  done(result: Result): void;
  failed(error: unknown): void;
}

export interface BatcherOptions {
  /** Statements under way at once. */
  maxInFlight: number;
  /** Items per statement. */
  maxBatch: number;
  /**
   * Items that must be waiting for a statement to start while another is under way (default 1).
   * Every statement pays a fixed part whatever it carries: a second one at once is worth it only
   * for a batch that full.
   */
  minOverlappingBatch?: number;
  /**
   * After this long, the statements under way no longer hold back one beside them, however few
   * items wait (default: they always do). One stuck on a connection the database has not
   * answered (it was restarting) would otherwise hold back every caller until it ends.
   */
  overtakeAfterMs?: number;
  /**
   * Whether a failed statement's error says the store itself is away, so that every item fails
   * with it rather than running again alone (default: the database's connection errors).
   */
  storeAway?: (error: unknown) => boolean;
}

/**
 * Runs many concurrent callers' work as one statement (group commit): one SQL statement, or one
 * call of a Redis script. A statement starts at once when none is under way, and beside others
 * (up to `maxInFlight`) once `minOverlappingBatch` items are waiting, or once those have been
 * under way `overtakeAfterMs`; items submitted meanwhile wait, and the next statement takes all
 * of them (up to `maxBatch`). Idle, nothing waits; under load each round trip carries many
 * items, so the store and this process do far less work per item. Each caller is answered only
 * when the statement holding its item has finished. If a statement fails, each of its items
 * runs again on its own, so an item that cannot be done fails alone; the statement being
 * atomic, the failed attempt left nothing behind. When the store itself is away (`storeAway`),
 * every item fails at once with the statement: running them again alone would only make their
 * callers wait for more connection attempts.
 *
 * `run` answers its items in order, one result each.
 */
export class StatementBatcher<Item, Result = void> {
  private readonly waiting: Waiting<Item, Result>[] = [];
  private inFlight = 0;
  /** When the newest statement under way started. */
  private lastStartMs = 0;
  private overtakeTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly run: (items: readonly Item[]) => Promise<readonly Result[]>,
    private readonly options: BatcherOptions,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise((done, failed) => {
      this.waiting.push({ item, done, failed });
      this.startStatements();
    });
  }

  private startStatements(): void {
    const { overtakeAfterMs } = this.options;
    // Every submit passes here: only a batcher that overtakes reads the time, once a pass.
    const now = overtakeAfterMs === undefined ? 0 : Date.now();
    while (this.inFlight < this.options.maxInFlight && this.waiting.length >= this.leastToStart(now)) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      this.lastStartMs = now;
      void this.runBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.startStatements();
      });
    }
    if (overtakeAfterMs !== undefined) this.watchForOvertaking(this.lastStartMs + overtakeAfterMs, now);
  }

  private leastToStart(now: number): number {
    if (this.inFlight === 0 || this.isOverdue(now)) return 1;
    return this.options.minOverlappingBatch ?? 1;
  }

  private isOverdue(now: number): boolean {
    const { overtakeAfterMs } = this.options;
    return overtakeAfterMs !== undefined && now - this.lastStartMs >= overtakeAfterMs;
  }

  /** While items wait beside statements under way, starts one for them once those are overdue (at `due`). */
  private watchForOvertaking(due: number, now: number): void {
    const watching = this.waiting.length > 0 && this.inFlight > 0 && this.inFlight < this.options.maxInFlight;
    if (!watching) {
      if (this.overtakeTimer) clearTimeout(this.overtakeTimer);
      this.overtakeTimer = null;
      return;
    }
    this.overtakeTimer ??= setTimeout(
      () => {
        this.overtakeTimer = null;
        this.startStatements();
      },
      Math.max(0, due - now),
    );
    this.overtakeTimer.unref();
  }

  private async runBatch(batch: Waiting<Item, Result>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((waiting) => waiting.item));
      for (const [index, waiting] of batch.entries()) waiting.done(results[index]!);
    } catch (error) {
      if (batch.length === 1 || (this.options.storeAway ?? isDatabaseUnavailable)(error)) {
        for (const waiting of batch) waiting.failed(error);
        return;
      }
      await Promise.all(batch.map((waiting) => this.run([waiting.item]).then(([result]) => waiting.done(result!), waiting.failed)));
    }
  }
}
