import type postgres from 'postgres';
import { expect } from 'vitest';

/**
 * A transaction on a connection of the test's own, its first statements `work` (the locks it
 * takes), open until `commit` or `rollback`; `pid` is its backend, for `waiterOn`.
 */
export async function openTransaction(sql: postgres.Sql, work: (connection: postgres.ReservedSql) => Promise<unknown>) {
  const connection = await sql.reserve();
  await connection`begin`;
  await work(connection);
  const [holder] = await connection<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const end = async (how: 'commit' | 'rollback') => {
    await connection.unsafe(how);
    connection.release();
  };
  return { pid: holder!.pid, commit: () => end('commit'), rollback: () => end('rollback') };
}

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
