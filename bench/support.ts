/**
 * What the benchmarks share: the build, a fresh database on the local PostgreSQL server, the
 * built API in its own process, and JSON calls to it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { GENEROUS_RATE_LIMITS } from '../test/processes.js';

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
      // Load from one tenant far beyond any plan's figures: what is measured is the work, not 429s.
      ...GENEROUS_RATE_LIMITS,
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      break;
    if (attempt > 300) throw new Error('service did not become healthy');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...nodeFlags, 'apps/worker/dist/main.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      MIGRATE_ON_START: 'false',
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
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
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
    body: { organization_name: 'Bench', name: 'Bench', email: 'bench@example.test', password: 'a long bench password' },
  });
  return { headers: { cookie: signup.cookie }, runtimeKey: (signup.body.data.api_key as { key: string }).key };
}
