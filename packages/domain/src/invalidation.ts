import { sql } from 'drizzle-orm';
import { cacheInvalidationClock, type Database, type Tx } from '@agov/db';
import type { Deps } from './deps.js';

/** Channel on which committed changes tell every process which cached entries to drop. */
export const INVALIDATION_CHANNEL = 'agov_cache_invalidation';

export type Invalidation =
  /** A key was rotated or deleted. */
  | { kind: 'api_key'; id: string }
  /** An agent or one of its rules changed: its cached decision inputs are stale. */
  | { kind: 'agent'; id: string }
  /** A tenant's subscription changed (id = tenant id): its plan, and so its rate limits. */
  | { kind: 'tenant_plan'; id: string }
  /** A tenant's webhook endpoints, e-mail or chat settings changed (id = tenant id): who receives its effects. */
  | { kind: 'effect_audience'; id: string };

export type Invalidate = (message: Invalidation) => void;

/** What one committed change announces: its number on the invalidation clock and what it made stale. */
export interface InvalidationNotice {
  seq: number;
  changes: Invalidation[];
}

/**
 * Runs `work` in a transaction that may invalidate cached entries. At its end the transaction
 * moves the invalidation clock on and announces the new value and its invalidations with
 * pg_notify, so the notice exists exactly when the change commits and no process can hear of
 * a change that rolled back. The clock's row is locked last, just before commit, so these
 * transactions queue on it only for that moment and never hold it while waiting for another
 * lock. This process applies the invalidations right after commit, so a caller reads its own
 * write; other processes apply them when their LISTEN connection delivers the notice, and a
 * request there that starts after this change answered waits for that (see CacheFreshness).
 */
export async function transactionInvalidating<T>(deps: Deps, work: (tx: Tx, invalidate: Invalidate) => Promise<T>): Promise<T> {
  const changes: Invalidation[] = [];
  const result = await deps.database.db.transaction(async (tx) => {
    const value = await work(tx, (message) => {
      changes.push(message);
    });
    if (changes.length > 0) {
      const [clock] = await deps.database.rows<{ seq: string | number }>(
        sql`insert into ${cacheInvalidationClock} (id, seq) values (true, 1)
            on conflict (id) do update set seq = ${cacheInvalidationClock.seq} + 1 returning seq`,
        tx,
      );
      const notice: InvalidationNotice = { seq: Number(clock!.seq), changes };
      await tx.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(notice)})`);
    }
    return value;
  });
  for (const message of changes) applyInvalidation(deps, message);
  return result;
}

const READ_CLOCK = 'select seq from cache_invalidation_clock';

/** The clock's current value: how many invalidating changes have committed. Read before most requests, so prepared. */
export async function readInvalidationClock(database: Database): Promise<number> {
  const [clock] = await database.prepared<{ seq: string | number }>(READ_CLOCK, []);
  return clock ? Number(clock.seq) : 0;
}

export function applyInvalidation(deps: Deps, message: Invalidation): void {
  switch (message.kind) {
    case 'api_key':
      deps.apiKeys.evictKeyId(message.id);
      return;
    case 'agent':
      deps.decisionInputs.evict(message.id);
      return;
    case 'tenant_plan':
      deps.tenantPlans.delete(message.id);
      return;
    case 'effect_audience':
      deps.effectAudiences.delete(message.id);
      return;
  }
}
