import { sql } from 'drizzle-orm';
import type { Tx } from '@agov/db';
import type { Deps } from './deps.js';

/** Channel on which committed changes tell every process which cached entries to drop. */
export const INVALIDATION_CHANNEL = 'agov_cache_invalidation';

export type Invalidation =
  /** A key was rotated or deleted. */
  | { kind: 'api_key'; id: string }
  /** An agent or one of its rules changed: its cached decision inputs are stale. */
  | { kind: 'agent'; id: string }
  /** A tenant's subscription changed (id = tenant id): its plan, and so its rate limits. */
  | { kind: 'tenant_plan'; id: string };

export type Invalidate = (message: Invalidation) => Promise<void>;

/**
 * Runs `work` in a transaction that may invalidate cached entries. Each invalidation is sent
 * with pg_notify inside the transaction, so it exists exactly when the change commits and no
 * process can hear of a change that rolled back. This process applies it right after commit,
 * so a caller reads its own write; other processes apply it when their LISTEN connection
 * delivers it, within milliseconds (measured: up to ~10 ms after the change's response), so a
 * request racing that delivery in another process can still see the old entry.
 */
export async function transactionInvalidating<T>(deps: Deps, work: (tx: Tx, invalidate: Invalidate) => Promise<T>): Promise<T> {
  const pending: Invalidation[] = [];
  const result = await deps.database.db.transaction((tx) =>
    work(tx, async (message) => {
      pending.push(message);
      await tx.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(message)})`);
    }),
  );
  for (const message of pending) applyInvalidation(deps, message);
  return result;
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
  }
}
