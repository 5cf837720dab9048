import { getTableName, sql } from 'drizzle-orm';
import { cacheInvalidationClock, type Database, type Tx } from '@agov/db';
import { applyInvalidation, type Caches, type CoreDeps, type Invalidation } from './caches.js';
import type { CacheFreshness } from './freshness.js';

/** Channel on which committed changes tell every process which cached entries to drop. */
const INVALIDATION_CHANNEL = 'agov_cache_invalidation';

export type Invalidate = (change: Invalidation) => void;

/** What one committed change announces: its number on the invalidation clock and what it made stale. */
interface InvalidationNotice {
  seq: number;
  changes: Invalidation[];
}

/**
 * Runs `work` in a transaction that may invalidate cached entries, announced at its end (see
 * `announceInvalidations`). This process applies the invalidations right after commit, so a
 * caller reads its own write; other processes apply them when their LISTEN connection
 * delivers the notice, and a request there that starts after this change answered waits for
 * that (see CacheFreshness).
 */
export async function transactionInvalidating<T>(deps: CoreDeps, work: (tx: Tx, invalidate: Invalidate) => Promise<T>): Promise<T> {
  const changes: Invalidation[] = [];
  const result = await deps.database.db.transaction(async (tx) => {
    const value = await work(tx, (change) => {
      changes.push(change);
    });
    await announceInvalidations(tx, changes);
    return value;
  });
  for (const change of changes) applyInvalidation(deps.caches, change);
  return result;
}

/**
 * Moves the invalidation clock on and announces its new value with the changes, with
 * pg_notify, in the caller's transaction: the notice exists exactly when the change commits,
 * and no process can hear of a change that rolled back. Call it last: the clock's row is
 * locked just before commit, so these transactions queue on it only for that moment and never
 * hold it while waiting for another lock.
 */
export async function announceInvalidations(tx: Tx, changes: readonly Invalidation[]): Promise<void> {
  if (changes.length === 0) return;
  const [clock] = await tx
    .insert(cacheInvalidationClock)
    .values({ id: true, seq: 1 })
    .onConflictDoUpdate({ target: cacheInvalidationClock.id, set: { seq: sql`${cacheInvalidationClock.seq} + 1` } })
    .returning({ seq: cacheInvalidationClock.seq });
  const notice: InvalidationNotice = { seq: clock!.seq, changes: [...changes] };
  await tx.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(notice)})`);
}

/** The table whose one row is the clock, for statements written out. */
export const INVALIDATION_CLOCK = getTableName(cacheInvalidationClock);
const READ_CLOCK = `select seq from ${INVALIDATION_CLOCK}`;

/** The clock's current value: how many invalidating changes have committed. Read before most requests, so prepared. */
export async function readInvalidationClock(database: Database): Promise<number> {
  const [clock] = await database.prepared<{ seq: string | number }>(READ_CLOCK, []);
  return clock ? Number(clock.seq) : 0;
}

/** What listening tells whoever watches the process. */
export interface InvalidationListenerEvents {
  /** A notice this version cannot read; nothing was dropped for it. */
  malformed(payload: string): void;
  /** The listening connection came back: notices sent meanwhile are lost, so every cache is dropped. */
  resubscribed(): void;
  /** The clock could not be read after that; freshness reads it again before trusting a cache. */
  clockUnread(error: unknown): void;
}

/**
 * Applies to this process's caches every invalidation any process commits, in commit order,
 * and tells `freshness` how far it has heard. Resolves to the function that stops listening.
 */
export async function listenForInvalidations(
  database: Database,
  caches: Caches,
  freshness: Pick<CacheFreshness, 'heard' | 'resynchronize'>,
  events: InvalidationListenerEvents,
): Promise<() => Promise<void>> {
  return database.listen(
    INVALIDATION_CHANNEL,
    (payload) => {
      const notice = parseNotice(payload);
      if (!notice) return events.malformed(payload);
      for (const change of notice.changes) applyInvalidation(caches, change);
      freshness.heard(notice.seq);
    },
    () => {
      events.resubscribed();
      freshness.resynchronize().catch(events.clockUnread);
    },
  );
}

function parseNotice(payload: string): InvalidationNotice | null {
  try {
    const notice = JSON.parse(payload) as InvalidationNotice;
    return Number.isInteger(notice.seq) && Array.isArray(notice.changes) ? notice : null;
  } catch {
    return null;
  }
}
