import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, openDatabase } from '../src/index.js';

/**
 * `readSnapshot` on the PostgreSQL server: one read-only REPEATABLE READ transaction without
 * parallel workers, whose statements all see the snapshot its first one took. JIT is off on
 * every connection.
 * (Embedded, it runs as it comes: there is no other connection to commit in between.)
 */
describe('a snapshot read on PostgreSQL', () => {
  const table = sql.raw(`snapshot_probe_${process.pid}`);
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: inject('databaseUrl'), databasePoolSize: 2, dataDir: '' });
    await database.rows(sql`create table ${table} (n integer not null)`);
  });
  afterAll(async () => {
    await database.rows(sql`drop table ${table}`);
    await database.close();
  });

  it('every connection has JIT off', async () => {
    const connections = await Promise.all(
      [1, 2].map(() => database.db.transaction((tx) => database.rows<{ jit: string }>(sql`select current_setting('jit') as jit`, tx))),
    );
    expect(connections).toEqual([[{ jit: 'off' }], [{ jit: 'off' }]]);
  });

  it('is read only, repeatable read, without parallel workers or JIT, and sees one snapshot throughout', async () => {
    const count = async (executor?: Parameters<Database['rows']>[1]) =>
      (await database.rows<{ n: number }>(sql`select count(*)::int as n from ${table}`, executor))[0]!.n;
    const seen = await database.readSnapshot(async (executor) => {
      const [settings] = await database.rows<Record<string, string>>(
        sql`select current_setting('transaction_isolation') as isolation, current_setting('transaction_read_only') as read_only,
          current_setting('jit') as jit, current_setting('max_parallel_workers_per_gather') as parallel_workers`,
        executor,
      );
      const before = await count(executor);
      // Committed on another connection of the pool while the snapshot is open.
      await database.rows(sql`insert into ${table} values (1)`);
      return { settings, before, after: await count(executor) };
    });
    expect(seen).toEqual({
      settings: { isolation: 'repeatable read', read_only: 'on', jit: 'off', parallel_workers: '0' },
      before: 0,
      after: 0,
    });
    expect(await count()).toBe(1);

    const refused = await database
      .readSnapshot((executor) => database.rows(sql`insert into ${table} values (2)`, executor))
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ cause: { code: '25006' } });
    expect(await count()).toBe(1);
  });
});
