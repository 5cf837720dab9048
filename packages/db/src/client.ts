import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { Config } from '@agov/config';
import { sql } from 'drizzle-orm';
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
   * A read of many statements (a simulation's pages), writing nothing. On PostgreSQL it runs in one
   * read-only REPEATABLE READ transaction, so every statement sees the same snapshot, without
   * parallel workers (on two busy cores a parallel plan read keyset pages of traces with their
   * events at half the rate) and without JIT compilation: a page whose estimated cost passes
   * `jit_above_cost` was compiled again for every page, and a million traces read in 9.9 s
   * instead of 5.7. On PGlite it runs as it comes: a transaction there would hold every
   * other query of the process until it ended.
   */
  readSnapshot<T>(work: (executor: Executor) => Promise<T>): Promise<T>;
  /**
   * Subscribes to a notification channel; resolves to the function that unsubscribes.
   * Notifications sent while the listening connection is down are lost: `onResubscribe`
   * runs each time the subscription is made again after that connection was lost, so the
   * caller can drop whatever those notifications would have told it. (An embedded
   * database lives in this process and never loses the subscription.)
   */
  listen(channel: string, onMessage: (payload: string) => void, onResubscribe?: () => void): Promise<() => Promise<void>>;
  /** Which server answers, as `host:port` (after a failover, another one); `embedded` for PGlite. */
  server(): Promise<string>;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export const migrationsFolder = fileURLToPath(new URL('../migrations', import.meta.url));
/** Serialises start-up migrations across processes sharing one server. */
const MIGRATION_LOCK = 7_212_004_001;

/**
 * `readSnapshot`'s transaction settings, in one round trip: a statement without parameters goes
 * as a simple query, which may hold several, and the isolation level is set before the
 * `select` takes the transaction's snapshot.
 */
const SNAPSHOT_SETTINGS = sql.raw(
  "set transaction isolation level repeatable read, read only; select set_config('max_parallel_workers_per_gather', '0', true)",
);

type PostgresSettings = Pick<Config, 'databasePoolSize'> & Partial<Pick<Config, 'databaseStatementTimeoutMs' | 'databaseConnectTimeoutMs'>>;

/** Without `databaseStatementTimeoutMs` statements have no limit: for tools that only migrate. */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'> & PostgresSettings): Promise<Database> {
  return config.databaseUrl ? await openPostgres(config.databaseUrl, config) : openPglite(config.dataDir);
}

/**
 * postgres.js waits before it connects again after a failed attempt, and the wait grows with
 * every failure in a row up to 20 s, while a query handed to that connection waits with it: a
 * database back after a few seconds' outage kept requests failing for 11–26 s more. A
 * connection here tries again after at most this long; a refused attempt costs little.
 */
const RECONNECT_AFTER_S = (failures: number) => Math.min(0.025 * failures, 0.25);
const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;

/**
 * Every connection starts with JIT compilation off: the service's statements are bounded by
 * their indexes and limits, but the planner prices a limit behind an `offset` it cannot see
 * (a located page's) as a scan of much of the table, and past its threshold JIT compiles for
 * tens of milliseconds a statement that then runs in a few.
 *
 * Every connection starts with `statement_timeout` set, so PostgreSQL cancels any one statement
 * that runs longer (SQLSTATE 57014, which the API answers as 503). It bounds a statement, not a
 * request: an export reads page by page, each page its own statement, so a long export is not
 * cut short by it. A connection attempt gives up after `databaseConnectTimeoutMs`. The URL may
 * name several hosts (`…@a:5432,b:5432/db?target_session_attrs=read-write`): each new
 * connection tries them in turn and keeps the first that fits, so after a failover the pool
 * finds the new primary by itself.
 */
async function openPostgres(url: string, settings: PostgresSettings): Promise<Database> {
  const connectTimeoutS = (settings.databaseConnectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS) / 1_000;
  const client = postgres(url, {
    max: settings.databasePoolSize,
    onnotice: () => {},
    connect_timeout: connectTimeoutS,
    backoff: RECONNECT_AFTER_S,
    connection: {
      application_name: 'agent-governance',
      jit: 'off',
      ...(settings.databaseStatementTimeoutMs === undefined ? {} : { statement_timeout: settings.databaseStatementTimeoutMs }),
    },
  });
  // Each new connection first asks for the server's array types, unless told not to; the
  // answer is kept for the whole pool. A connection cut between sign-in and that question (a
  // database going down or coming up) left a rejection nobody handles, which ends a process.
  // So the first connection asks, and the rest, reconnections included, use its answer.
  await client`select 1`;
  client.options.fetch_types = false;
  const subscriptions = listener(url, connectTimeoutS);
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return {
    db,
    driver: 'postgres',
    rows: async <T>(query: Parameters<Db['execute']>[0], executor: Executor = db) => (await executor.execute(query)) as unknown as T[],
    prepared: async <T>(text: string, params: readonly unknown[]) =>
      (await client.unsafe(text, params as never[], { prepare: true })) as unknown as T[],
    readSnapshot: <T>(work: (executor: Executor) => Promise<T>) =>
      db.transaction(async (tx) => {
        await tx.execute(SNAPSHOT_SETTINGS);
        return work(tx);
      }),
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
    listen: subscriptions.listen,
    async server() {
      const [row] = await client<
        { server: string }[]
      >`select coalesce(host(inet_server_addr()), 'local socket') || ':' || inet_server_port() as server`;
      return row!.server;
    },
    async close() {
      await subscriptions.close();
      await client.end({ timeout: 5 });
    },
  };
}

/** How soon a lost LISTEN connection is tried again, however long the database stays away. */
const RESUBSCRIBE_MS = 200;

/**
 * LISTEN on a connection of its own. postgres.js's `listen` issues LISTEN again once when its
 * connection closes and, should that one attempt fail (the database still down), drops the
 * subscription for good, silently. Here a lost connection is followed by attempts every
 * RESUBSCRIBE_MS until one succeeds, and each channel's `onResubscribe` runs then, since
 * whatever was sent in between is lost.
 */
function listener(url: string, connectTimeoutS: number) {
  const channels = new Map<string, { onMessage: (payload: string) => void; onResubscribe?: () => void }>();
  let closing = false;
  let retry: NodeJS.Timeout | null = null;
  // `onnotify` is what postgres.js's own `listen` uses; its type declarations leave it out.
  const options: postgres.Options<Record<string, never>> & { onnotify(channel: string, payload: string): void } = {
    max: 1,
    // Never closed for idleness or age: it must stay to hear notifications.
    idle_timeout: 0,
    max_lifetime: 0,
    fetch_types: false,
    onnotice: () => {},
    connect_timeout: connectTimeoutS,
    backoff: RECONNECT_AFTER_S,
    connection: { application_name: 'agent-governance' },
    onnotify: (channel, payload) => channels.get(channel)?.onMessage(payload),
    onclose: () => {
      if (!closing && channels.size > 0) resubscribe();
    },
  };
  const connection = postgres(url, options);
  const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;
  const subscribe = (channel: string) => connection.unsafe(`listen ${quoted(channel)}`);
  function resubscribe() {
    retry ??= setTimeout(async () => {
      try {
        for (const channel of channels.keys()) await subscribe(channel);
        retry = null;
        for (const { onResubscribe } of channels.values()) onResubscribe?.();
      } catch {
        retry = null;
        if (!closing) resubscribe();
      }
    }, RESUBSCRIBE_MS);
  }
  return {
    async listen(channel: string, onMessage: (payload: string) => void, onResubscribe?: () => void) {
      channels.set(channel, { onMessage, ...(onResubscribe ? { onResubscribe } : {}) });
      await subscribe(channel);
      return async () => {
        channels.delete(channel);
        await connection.unsafe(`unlisten ${quoted(channel)}`).catch(() => undefined);
      };
    },
    async close() {
      closing = true;
      if (retry) clearTimeout(retry);
      await connection.end({ timeout: 5 });
    },
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
    readSnapshot: (work) => work(db),
    async listen(channel, onMessage) {
      const unlisten = await client.listen(channel, onMessage);
      return unlisten;
    },
    server: async () => 'embedded',
    migrate: () => migratePglite(db as never, { migrationsFolder }),
    async close() {
      await client.close();
      unlock();
    },
  };
}
