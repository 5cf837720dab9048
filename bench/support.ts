/**
 * What the benchmarks share: the build, a fresh database on the local PostgreSQL server, the
 * built API in its own process, JSON calls to it, and the effects its outbox still holds.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort, TEST_ENV } from '../test/processes.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const serverUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Builds every package with turbo, so the service runs as `npm start` would run it. */
export function build() {
  execFileSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
}

/** A new, empty database on the server; `drop` removes it and closes the server connection. */
export async function freshDatabase() {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `agov_bench_${Date.now()}`;
  await admin.unsafe(`create database ${name}`);
  const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  return {
    admin,
    url,
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
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

/** Starts the built API on a free port against `databaseUrl` and waits until it is healthy. */
export async function startService(
  databaseUrl: string,
  options: { nodeFlags?: readonly string[]; env?: Record<string, string> } = {},
): Promise<Service> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), 'apps/api/dist/main.js'], {
    cwd: root,
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
  return { body: (await response.json()) as Body, cookie: response.headers.get('set-cookie')?.split(';')[0] ?? '' };
}

/** A new tenant: the admin's session headers and the agent runtime key signup issues. */
export async function signUp(base: string) {
  const signup = await call(base, '/api/v1/auth/signup', {
    method: 'POST',
    body: { organization_name: 'Bench', name: 'Bench', email: `bench-${randomUUID()}@example.test`, password: 'a long bench password' },
  });
  return { headers: { cookie: signup.cookie }, runtimeKey: (signup.body.data.api_key as { key: string }).key };
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
 * per request, by part: the given child processes by name, `postgres` and `redis` (every
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
  const self = process.cpuUsage();
  return {
    ...Object.fromEntries(Object.entries(children).map(([name, pid]) => [name, ofPid(pid)])),
    postgres: byCommand('postgres'),
    redis: byCommand('redis-server'),
    bench: (self.user + self.system) / 1000,
  };
}
