import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { Config } from '@agov/config';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { lockDataDir } from './data-dir-lock.js';
import * as schema from './schema/index.js';

/** One type for both drivers: everything above this file is driver-agnostic. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** A database handle or an open transaction: functions that take one work inside either. */
export type Executor = Db | Tx;

export interface Database {
  readonly db: Db;
  readonly driver: 'postgres' | 'pglite';
  /** Rows of a raw statement, whatever the driver's result shape. */
  rows<T>(query: Parameters<Db['execute']>[0], executor?: Executor): Promise<T[]>;
  /**
   * A constant statement with positional parameters, prepared once per connection. For hot
   * paths only, where building the query through the ORM on every call would cost more than
   * the database's own work.
   */
  prepared<T>(text: string, params: readonly unknown[]): Promise<T[]>;
  /**
   * Subscribes to a notification channel; resolves to the function that unsubscribes.
   * Notifications sent while the listening connection is down are lost: `onResubscribe`
   * runs each time the subscription is made again after that connection was lost, so the
   * caller can drop whatever those notifications would have told it. (An embedded
   * database lives in this process and never loses the subscription.)
   */
  listen(channel: string, onMessage: (payload: string) => void, onResubscribe?: () => void): Promise<() => Promise<void>>;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('../migrations', import.meta.url));
/** Serialises start-up migrations across processes sharing one server. */
const MIGRATION_LOCK = 7_212_004_001;

/** Without `databaseStatementTimeoutMs` statements have no limit: for tools that only migrate. */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'dataDir'> & Partial<Pick<Config, 'databaseStatementTimeoutMs'>>,
): Promise<Database> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, config.databasePoolSize, config.databaseStatementTimeoutMs)
    : openPglite(config.dataDir);
}

/**
 * Every connection starts with `statement_timeout` set, so PostgreSQL cancels any one statement
 * that runs longer (SQLSTATE 57014, which the API answers as 503). It bounds a statement, not a
 * request: an export reads page by page, each page its own statement, so a long export is not
 * cut short by it.
 */
function openPostgres(url: string, poolSize: number, statementTimeoutMs: number | undefined): Database {
  const client = postgres(url, {
    max: poolSize,
    onnotice: () => {},
    connection: {
      application_name: 'agent-governance',
      ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
    },
  });
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return {
    db,
    driver: 'postgres',
    rows: async <T>(query: Parameters<Db['execute']>[0], executor: Executor = db) => (await executor.execute(query)) as unknown as T[],
    prepared: async <T>(text: string, params: readonly unknown[]) =>
      (await client.unsafe(text, params as never[], { prepare: true })) as unknown as T[],
    async migrate() {
      const lock = await client.reserve();
      try {
        // Waiting for the lock lasts as long as another process's migrations: no statement limit
        // for that wait. `reset` below gives the connection back with the limit it opened with.
        await lock`set statement_timeout = 0`;
        await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
        await migratePostgres(db as never, { migrationsFolder });
      } finally {
        await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`;
        await lock`reset statement_timeout`;
        lock.release();
      }
    },
    async listen(channel, onMessage, onResubscribe) {
      // postgres.js calls `onlisten` on the first LISTEN and again each time it re-issues
      // LISTEN on a new connection after the old one closed.
      let subscribed = false;
      const { unlisten } = await client.listen(channel, onMessage, () => {
        if (subscribed) onResubscribe?.();
        subscribed = true;
      });
      return unlisten;
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * No statement limit here: PGlite 0.5 accepts `SET statement_timeout` but never cancels a
 * statement (a 1 s `pg_sleep` and an 8 s scan both ran to the end under a 200 ms limit).
 */
async function openPglite(dataDir: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  let client: PGlite;
  try {
    client = await PGlite.create({ dataDir });
  } catch (error) {
    unlock();
    throw error;
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    driver: 'pglite',
    rows: async <T>(query: Parameters<Db['execute']>[0], executor: Executor = db) =>
      ((await executor.execute(query)) as unknown as { rows: T[] }).rows,
    prepared: async <T>(text: string, params: readonly unknown[]) => (await client.query<T>(text, [...params])).rows,
    async listen(channel, onMessage) {
      const unlisten = await client.listen(channel, onMessage);
      return unlisten;
    },
    migrate: () => migratePglite(db as never, { migrationsFolder }),
    async close() {
      await client.close();
      unlock();
    },
  };
}
