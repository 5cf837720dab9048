import { sql } from 'drizzle-orm';
import { bigint, boolean, check, pgTable } from 'drizzle-orm/pg-core';

/**
 * One row counting the committed changes that made cached entries stale. Each such change
 * moves it on in its own transaction and announces the new value with its invalidations, so
 * a process can tell, by reading it, whether it has heard of every change committed so far.
 */
export const cacheInvalidationClock = pgTable(
  'cache_invalidation_clock',
  {
    id: boolean('id').primaryKey().default(true),
    seq: bigint('seq', { mode: 'number' }).notNull(),
  },
  (table) => [check('cache_invalidation_clock_single_row', sql`${table.id}`)],
);
