import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { cacheEntryFor } from './assertions.js';
import { commitInvalidation, useTestApp } from './harness.js';

// A database of its own: terminating the LISTEN backend must not reach other files' apps.
const t = useTestApp({ ownDatabase: true });

/** Kills the app's LISTEN connection from outside, as a database restart or failover would; answers how many died. */
async function terminateListener(): Promise<number> {
  const admin = postgres(t.runtime.config.databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const killed = await admin`
      select pg_terminate_backend(pid) from pg_stat_activity
      where query ilike 'listen%' and datname = current_database() and pid <> pg_backend_pid()`;
    return killed.length;
  } finally {
    await admin.end();
  }
}

async function eventually(check: () => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
}

describe('caches after the LISTEN connection is lost', () => {
  it('are cleared once the listener has subscribed again, since notifications sent meanwhile are lost', async () => {
    const decisionInputs = cacheEntryFor(t, randomUUID());
    const apiKeys = t.runtime.deps.caches.apiKeys;
    const keyHash = randomUUID();
    apiKeys.set(
      keyHash,
      { id: randomUUID(), tenantId: randomUUID(), name: 'cached', prefix: 'agov_live_ca', scopes: [], expiresAt: null, lastUsedAt: null },
      apiKeys.ticket(),
    );

    expect(await terminateListener()).toBe(1);

    expect(await eventually(() => decisionInputs() === undefined && apiKeys.get(keyHash) === undefined)).toBe(true);

    // Subscribed again: a notification from another process evicts as before.
    const agentId = randomUUID();
    const stale = cacheEntryFor(t, agentId);
    await commitInvalidation(t.runtime.database, { kind: 'agent', id: agentId });
    expect(await eventually(() => stale() === undefined)).toBe(true);
  });
});
