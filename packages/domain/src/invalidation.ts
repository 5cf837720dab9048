import { sql } from 'drizzle-orm';
import type { Executor } from '@agov/db';

/** Channel on which committed changes tell every process which cached entries to drop. */
export const INVALIDATION_CHANNEL = 'agov_cache_invalidation';

export type Invalidation = { kind: 'api_key'; id: string };

/** Queued inside the caller's transaction: PostgreSQL delivers it only if that commits. */
export async function announceInvalidation(executor: Executor, message: Invalidation): Promise<void> {
  await executor.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(message)})`);
}
