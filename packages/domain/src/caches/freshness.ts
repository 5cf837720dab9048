import { OVERDUE_STATEMENT_MS } from '../support/db-errors.js';

/**
 * Whether this process has applied every cache invalidation committed so far, anywhere.
 *
 * Each invalidating transaction moves a counter in the database (the invalidation clock) and
 * announces its new value with its invalidations; the LISTEN connection delivers those in
 * commit order, so `heard(n)` means every change up to n has been applied here. A request
 * that is about to trust a cache calls `ensure()`: it reads the clock with a statement that
 * starts after the call, and if a change this process has not heard of yet was committed
 * before that, waits until the listener applies it. So a key deleted or an agent suspended
 * through another process is honoured here by any request that starts after that change
 * answered, instead of "within a few milliseconds".
 *
 * Reads are shared: callers arriving while one is in flight wait for the next one, which
 * serves them all, so under load the check costs about one statement per round trip, not one
 * per request.
 *
 * A request that ends in one write can skip the read (evaluate does): it notes `heardSoFar()`
 * when it starts, and its write commits only if the clock has not passed that value by then,
 * else fails with `StaleCaches`, and the request is decided again after `ensure()`. Any change
 * answered before the request started has moved the clock before that write's snapshot.
 */
/** Whether this process's caches may be stale, and what a request can skip by knowing how far it has heard. */
export interface Freshness {
  ensure(): Promise<void>;
  /** The clock value this process has applied every invalidation up to; null where no other process changes the database. */
  heardSoFar(): number | null;
}

/** A write checked against the clock found a change committed that this process had not heard of when the request started. */
export class StaleCaches extends Error {
  constructor() {
    super('A change committed elsewhere may not have reached the caches this request read');
    this.name = 'StaleCaches';
  }
}

/**
 * Checks the caches (`ensure()`) and tells whether a change was heard since `heardThrough`:
 * whether what was read from them before may have missed it.
 */
export async function missedSince(freshness: Freshness, heardThrough: number): Promise<boolean> {
  await freshness.ensure();
  return (freshness.heardSoFar() ?? heardThrough) > heardThrough;
}

export class CacheFreshness implements Freshness {
  private heardThrough = 0;
  /** The caches were dropped after the listener came back, but the clock could not be read then. */
  private resynchronizing = false;
  private readonly waiting: { seq: number; resolve(): void }[] = [];
  private nextRead: Promise<number> | null = null;
  private readInFlight: Promise<number> | null = null;

  constructor(
    private readonly readClock: () => Promise<number>,
    private readonly options: {
      /** How long to wait for the listener before assuming its notifications are lost. */
      waitMs: number;
      /** Drops every cached entry: what to do when invalidations may have been missed. */
      dropCaches(): void;
    },
  ) {}

  /** From here on, the listener hears every change: start counting from the clock's value now. */
  async start(): Promise<void> {
    this.markHeard(await this.readClock());
  }

  heardSoFar(): number {
    return this.heardThrough;
  }

  /** The listener applied the invalidations of change `seq` (and so of every change before it). */
  heard(seq: number): void {
    this.markHeard(seq);
  }

  /**
   * The listener lost its connection: notifications sent meanwhile are gone. Drops the caches
   * and counts from the clock's value after the subscription was made again.
   */
  async resynchronize(): Promise<void> {
    this.options.dropCaches();
    // Entries loaded from now on reflect every change committed before they were read, and
    // the listener hears every later one: any clock value read after the drop counts as heard.
    this.resynchronizing = true;
    this.markHeard(await this.readClock());
    this.resynchronizing = false;
  }

  /** Resolves once this process has applied every invalidation committed before the call. */
  async ensure(): Promise<void> {
    const committed = await this.readAfterNow();
    if (this.resynchronizing) {
      // The read after the listener's return failed (the database flapping): this one stands in for it.
      this.resynchronizing = false;
      this.markHeard(committed);
    }
    if (committed <= this.heardThrough) return;
    const heard = new Promise<boolean>((resolve) => this.waiting.push({ seq: committed, resolve: () => resolve(true) }));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.options.waitMs);
    });
    const inTime = await Promise.race([heard, late]);
    clearTimeout(timer);
    if (!inTime) {
      // Entries loaded after this drop come from snapshots that include every change up to
      // `committed`, so counting it as heard is safe.
      this.options.dropCaches();
      this.markHeard(committed);
    }
  }

  private markHeard(seq: number): void {
    if (seq <= this.heardThrough) return;
    this.heardThrough = seq;
    for (let i = this.waiting.length - 1; i >= 0; i -= 1) {
      const waiter = this.waiting[i]!;
      if (waiter.seq <= seq) {
        this.waiting.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** Resolves when the read under way ends, or has taken OVERDUE_STATEMENT_MS; at once (next microtask) when none is. */
  private async endOfReadInFlight(): Promise<void> {
    const inFlight = this.readInFlight;
    if (!inFlight) return;
    let timer: NodeJS.Timeout | undefined;
    const overtaken = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, OVERDUE_STATEMENT_MS);
    });
    await Promise.race([inFlight.catch(() => undefined), overtaken]);
    clearTimeout(timer);
  }

  /** The clock's value from a read that starts after this call; one such read serves every caller waiting for it. */
  private readAfterNow(): Promise<number> {
    this.nextRead ??= (async () => {
      // The read under way may have started before some of its callers: wait for it to end,
      // but not for longer than a read takes. One stuck on a connection the database never
      // answered (it was starting up) would otherwise hold every request back until that
      // connection's attempt times out; a second read beside it is as correct.
      // (Always awaited, so that `nextRead` is set before it is cleared below.)
      await this.endOfReadInFlight();
      this.nextRead = null;
      const read = this.readClock();
      this.readInFlight = read;
      try {
        return await read;
      } finally {
        if (this.readInFlight === read) this.readInFlight = null;
      }
    })();
    return this.nextRead;
  }
}
