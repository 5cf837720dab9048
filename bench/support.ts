/**
 * What the benchmarks share: the build, a fresh database on the local PostgreSQL server, the
 * built API in its own process, JSON calls to it, and the effects its outbox still holds.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Database, openDatabase } from '@agov/db';
import { type SQL, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { childPids, freePort, TEST_ENV } from '../test/processes.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const serverUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BENCH_PASSWORD = 'a long bench password';

/** Builds every package with turbo, so the service runs as `npm start` would run it. */
export function build() {
  execFileSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
}

/**
 * A new, empty database on the server; `drop` removes it and closes the server connection.
 * With `kept`, the database of that name instead, made if it does not exist, which `drop` leaves
 * in place.
 */
export async function freshDatabase(kept?: string) {
  if (kept !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(kept)) throw new Error(`Not a database name to keep: ${kept}`);
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = kept ?? `agov_bench_${Date.now()}`;
  const exists = kept !== undefined && (await admin`select 1 from pg_database where datname = ${kept}`).length > 0;
  if (!exists) await admin.unsafe(`create database ${name}`);
  const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  return {
    admin,
    url,
    drop: async () => {
      if (kept === undefined) await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export interface Service {
  url: string;
  /** The API process's id, to read its memory from `/proc`. */
  pid: number;
  stop(): Promise<void>;
}

const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';

/**
 * Starts the built API on a free port against `databaseUrl` and waits until it is healthy;
 * `checkout`: another checkout's build instead of this one's.
 */
export async function startService(
  databaseUrl: string,
  options: { nodeFlags?: readonly string[]; env?: Record<string, string>; checkout?: string } = {},
): Promise<Service> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), 'apps/api/dist/main.js'], {
    cwd: options.checkout ?? root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: logLevel,
      // The secrets key, and load from one tenant far beyond any plan's figures: what is measured is the work, not 429s.
      ...TEST_ENV,
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilHealthy('service', child, `${url}/health`);
  return {
    url,
    pid: child.pid as number,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Starts the built worker against `databaseUrl` and waits until it consumes. */
export async function startWorker(
  databaseUrl: string,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...nodeFlags, 'apps/worker/dist/main.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      MIGRATE_ON_START: 'false',
      // The API's secrets key: the worker signs with the secrets it stored.
      ...TEST_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (line.includes('worker ready')) resolve();
        // Only what the API would show at BENCH_LOG_LEVEL=warn.
        else if (/"level":(4|5|6)0/.test(line)) process.stderr.write(`${line}\n`);
      }
    });
  });
  return {
    pid: child.pid as number,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Polls `healthUrl` every 100 ms until it answers 2xx; throws if `child` exits first or 30 s pass. */
export async function waitUntilHealthy(what: string, child: ChildProcess, healthUrl: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (
      await fetch(healthUrl)
        .then((r) => r.ok)
        .catch(() => false)
    )
      return;
    if (attempt > 300) throw new Error(`${what} did not become healthy`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A JSON call that must succeed; `cookie` is the session the response set, if any. */
export async function call<Body = { data: Record<string, unknown> }>(
  base: string,
  path: string,
  init: { method: string; body?: unknown; headers?: Record<string, string> },
) {
  const response = await fetch(`${base}${path}`, {
    method: init.method,
    headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!response.ok) throw new Error(`${init.method} ${path}: ${response.status} ${await response.text()}`);
  // A 204 has no body.
  const text = await response.text();
  return { body: (text === '' ? undefined : JSON.parse(text)) as Body, cookie: response.headers.get('set-cookie')?.split(';')[0] ?? '' };
}

/** A new tenant: the admin's session headers and the agent runtime key signup issues. */
export async function signUp(base: string) {
  const email = `bench-${randomUUID()}@example.test`;
  const signup = await call(base, '/api/v1/auth/signup', {
    method: 'POST',
    body: { organization_name: 'Bench', name: 'Bench', email, password: BENCH_PASSWORD },
  });
  return { email, headers: { cookie: signup.cookie }, runtimeKey: (signup.body.data.api_key as { key: string }).key };
}

/** A new session of a user `signUp` made. */
export async function logIn(base: string, email: string): Promise<{ cookie: string }> {
  const login = await call(base, '/api/v1/auth/login', { method: 'POST', body: { email, password: BENCH_PASSWORD } });
  return { cookie: login.cookie };
}

/** Effects still to do in a bench database: everything in the outbox but the approvals' expiries, a day away. */
export function outboxWatch(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const pending = async () => Number((await sql`select count(*)::int as n from outbox where kind <> 'approval_expiry'`)[0]!.n);
  return {
    pending,
    close: () => sql.end(),
    clear: () => sql`delete from outbox where kind <> 'approval_expiry'`,
    /** Seconds until nothing is left to do. */
    async drain(): Promise<number> {
      const started = performance.now();
      while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      return (performance.now() - started) / 1000;
    },
  };
}

/**
 * `work`'s result, and the CPU time each part of the bench spent while it ran, in milliseconds
 * per request, by part: the given child processes by name (with the processes they started), `postgres` and `redis` (every
 * server process of each on the host), and `bench` (this process: the load generator and the
 * webhook receiver). Read from `/proc`, so Linux only.
 */
export async function cpuPerRequest<Row extends { 'requests/s': number }>(
  children: Record<string, number>,
  seconds: number,
  work: () => Promise<Row>,
): Promise<{ row: Row; cpu: Record<string, number> }> {
  const before = cpuTimes(children);
  const row = await work();
  const after = cpuTimes(children);
  const requests = row['requests/s'] * seconds;
  const cpu = Object.fromEntries(Object.entries(after).map(([part, ms]) => [part, (ms - (before[part] ?? 0)) / requests]));
  return { row, cpu };
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function cpuTimes(children: Record<string, number>): Record<string, number> {
  const ofPid = (pid: number | string) => {
    try {
      // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      return 0; // gone since it was listed
    }
  };
  const byCommand = (command: string) =>
    readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === command;
        } catch {
          return false;
        }
      })
      .reduce((sum, pid) => sum + ofPid(pid), 0);
  // A child's own children count as its own: the API's processes under their supervisor.
  const ofTree = (pid: number): number => childPids(pid).reduce((sum, child) => sum + ofTree(child), ofPid(pid));
  const self = process.cpuUsage();
  return {
    ...Object.fromEntries(Object.entries(children).map(([name, pid]) => [name, ofTree(pid)])),
    postgres: byCommand('postgres'),
    redis: byCommand('redis-server'),
    bench: (self.user + self.system) / 1000,
  };
}

export interface TraceCopies {
  count: number;
  /** Copy i starts at startMs + i × spacingMs. */
  startMs: number;
  spacingMs: number;
  /** Copy the events up to this seq only; all when absent. */
  lastSeq?: number;
  /** Copy i's first event records `context.amount` = i × 7 919 mod 1 000, so conditions on it differ between copies. */
  varyAmount?: boolean;
  /** Copy the approval requests too, decided approved, denied and expired in turn. */
  approvals?: boolean;
}

/**
 * Writes `count` copies of a tenant's recorded traces by SQL, on either database: copy i is of
 * its template number i mod (how many there are, in start order), with a new id, its events
 * and, when asked, its approval requests. Hashes and chain heads are copied as they are, so the
 * copies do not verify. The tables' secondary indexes are dropped for the load and made again
 * after it, as they were.
 */
export async function copyTraces(database: Database, tenantId: string, copies: TraceCopies) {
  const start = new Date(copies.startMs).toISOString();
  const spacing = `${copies.spacingMs} milliseconds`;
  const startOf = sql`${start}::timestamptz + copies.i * ${spacing}::interval`;
  const tables = ['traces', 'trace_events', ...(copies.approvals ? ['approval_requests'] : [])];
  await database.rows(sql`
    create temporary table copies as
    select i, gen_random_uuid() as id, template.id as template_id
    from generate_series(0, ${copies.count - 1}::int) i
    join (
      select id, row_number() over (order by started_at) - 1 as k, count(*) over () as templates
      from traces where tenant_id = ${tenantId}
    ) template on template.k = i % template.templates`);
  const indexes = await database.rows<{ name: string; definition: string }>(sql`
    select i.indexname as name, i.indexdef as definition from pg_indexes i
    where i.schemaname = current_schema() and i.tablename in (${sql.join(
      tables.map((table) => sql`${table}`),
      sql`, `,
    )})
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`);
  for (const { name } of indexes) await database.rows(sql`drop index ${sql.identifier(name)}`);

  await insertCopies(database, 'traces', sql`from copies join traces t on t.id = copies.template_id`, {
    id: sql`copies.id`,
    started_at: startOf,
    completed_at: sql`case when t.completed_at is null then null else ${startOf} end`,
  });
  await insertCopies(
    database,
    'trace_events',
    sql`from copies join trace_events t on t.trace_id = copies.template_id and t.seq <= ${copies.lastSeq ?? 2 ** 31 - 1}::int`,
    {
      id: sql`gen_random_uuid()`,
      trace_id: sql`copies.id`,
      timestamp: startOf,
      ...(copies.varyAmount && {
        metadata: sql`case when t.seq = 1 then jsonb_set(t.metadata, '{context,amount}', to_jsonb(copies.i::bigint * 7919 % 1000)) else t.metadata end`,
      }),
    },
  );
  if (copies.approvals)
    await insertCopies(database, 'approval_requests', sql`from copies join approval_requests t on t.trace_id = copies.template_id`, {
      id: sql`gen_random_uuid()`,
      trace_id: sql`copies.id`,
      status: sql`(array['approved', 'denied', 'expired'])[copies.i % 3 + 1]`,
      requested_at: startOf,
      decided_at: sql`${startOf} + interval '1 minute'`,
      expires_at: sql`${startOf} + interval '1 hour'`,
    });

  for (const { definition } of indexes) await database.rows(sql.raw(definition));
  await database.rows(sql`drop table copies`);
  for (const table of tables) await database.rows(sql`analyze ${sql.identifier(table)}`);
}

/** Inserts a copy of each row `source` selects as `t`, with `overrides` in place of some of its columns. */
async function insertCopies(database: Database, table: string, source: SQL, overrides: Record<string, SQL>) {
  const columns = await database.rows<{ name: string }>(sql`
    select column_name as name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} order by ordinal_position`);
  const values = sql.join(
    columns.map(({ name }) => overrides[name] ?? sql`t.${sql.identifier(name)}`),
    sql`, `,
  );
  const names = sql.join(
    columns.map(({ name }) => sql.identifier(name)),
    sql`, `,
  );
  await database.rows(sql`insert into ${sql.identifier(table)} (${names}) select ${values} ${source}`);
}

/**
 * One connection to a database of the service's, server (`url`) or embedded (`dataDir`), for what
 * a bench writes or reads by SQL: one, so that a temporary table lives as long as the bench's use.
 */
export const openBenchDatabase = (at: { url: string } | { dataDir: string }) =>
  openDatabase({ databaseUrl: 'url' in at ? at.url : null, dataDir: 'dataDir' in at ? at.dataDir : '', databasePoolSize: 1 });

/**
 * Builds, starts the API on a fresh database (or the `kept` one, see `freshDatabase`) and runs
 * `body` with it and one connection to that database; then stops the API and drops the
 * database (unless kept), whatever happened.
 */
export async function withFreshService(body: (service: Service, database: Database) => Promise<void>, kept?: string) {
  build();
  const server = await freshDatabase(kept);
  const database = await openBenchDatabase(server);
  let service: Service | undefined;
  try {
    service = await startService(server.url);
    await body(service, database);
  } finally {
    await service?.stop();
    await database.close();
    await server.drop();
  }
}

/** A Markdown table, as the docs show benchmark results. */
export const markdownTable = (header: readonly string[], rows: readonly string[][]) =>
  [header, header.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');

/** A count with thin spaces between thousands: 1 000 000. */
export const spaced = (n: number) => Math.round(n).toLocaleString('en-US').replaceAll(',', ' ');
