import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The key of stored secrets in every test: apps and processes on one database must share it. */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * What every test app and every process the tests and benchmarks start runs with: one secrets
 * key, and rate limits far above anything a test sends, so that only the rate-limit tests,
 * which set their own small figures, ever meet a 429.
 */
export const TEST_ENV: Readonly<Record<string, string>> = {
  SECRETS_KEY: TEST_SECRETS_KEY,
  RATE_LIMIT_EVALUATE: '1000000',
  RATE_LIMIT_READ: '1000000',
  RATE_LIMIT_WRITE: '1000000',
  RATE_LIMIT_UNAUTHENTICATED: '1000000',
  RATE_LIMIT_CHAT_CALLBACK: '1000000',
};

/** The webhook retry delays of FAST_DISPATCH_ENV, for tests that reckon with them. */
export const FAST_RETRY_DELAYS_MS: readonly number[] = [150, 150, 150, 150];

/**
 * Effects dispatched at a test's pace rather than production's: the relay looks for due
 * effects every 50 ms, a claimed effect whose run died is handed out again after 3 s, and a
 * failed webhook (or e-mail, or chat card) is retried after 150 ms instead of minutes. Spread
 * it into a test's environment, then override a key where a test needs another value.
 */
export const FAST_DISPATCH_ENV: Readonly<Record<string, string>> = {
  OUTBOX_POLL_MS: '50',
  OUTBOX_LEASE_MS: '3000',
  WEBHOOK_RETRY_DELAYS_MS: FAST_RETRY_DELAYS_MS.join(','),
};

export interface Started {
  child: ChildProcess;
  output(): string;
  /** Sends `signal` to this process (by its own pid) and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns a command and waits until its output shows `ready`. */
export async function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<Started> {
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH!, ...TEST_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: nothing would stop it.
      child.kill('SIGKILL');
      reject(new Error(`${command} did not become ready:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a command to its end; resolves with its exit code and everything it printed. */
export function runToExit(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH!, ...TEST_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} did not end within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The worker app from its sources, as `npm run start:worker` runs it from its build. */
export function startWorker(env: Record<string, string>): Promise<Started> {
  return startProcess(process.execPath, ['--conditions=source', '--import', 'tsx', 'apps/worker/src/main.ts'], env, /worker ready/);
}

/** The processes `pid` started that are still running (Linux's `/proc`). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // gone
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A Redis server of the test's own, without persistence, so the test may stop it. */
export function startRedis(port: number): Promise<Started> {
  return startProcess(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {},
    /Ready to accept connections/,
  );
}

/** Removes every key under these prefixes from a shared Redis: a run's queues and counters leave with it. */
export async function dropRedisPrefixes(redisUrl: string, prefixes: readonly string[]): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    await redis.quit();
  }
}
