import type postgres from 'postgres';
import { expect } from 'vitest';

/**
 * The one backend that waits on a lock `blocker` holds, read from `pg_blocking_pids` through
 * the test's own connection; polls until it is there. A second waiter fails the test: each
 * race these tests force has exactly one.
 */
export async function waiterOn(sql: postgres.Sql, blocker: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const waiters = await sql<{ pid: number }[]>`select pid from pg_stat_activity where ${blocker}::int = any(pg_blocking_pids(pid))`;
    expect(waiters.length).toBeLessThanOrEqual(1);
    if (waiters[0]) return waiters[0].pid;
    if (Date.now() > deadline) throw new Error(`no backend came to wait on ${blocker}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
