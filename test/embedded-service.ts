import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface EmbeddedService {
  /** `http://127.0.0.1:<port>`, the address it said it listens at. */
  readonly baseUrl: string;
  /** Everything it has written so far, standard output and error together. */
  readonly output: string;
  readonly child: ChildProcess;
}

/**
 * The built service (built by the test setup) as `npm start` runs it with no DATABASE_URL:
 * embedded PostgreSQL in a data directory of its own, on a free port, for the tests of the
 * calling file; stopped with SIGTERM and its directory removed after them.
 */
export function useEmbeddedService(): EmbeddedService {
  let child: ChildProcess | undefined;
  let baseUrl: string | undefined;
  let output = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'agov-embedded-'));

  beforeAll(async () => {
    const started = spawn(process.execPath, ['apps/api/dist/main.js'], {
      cwd: root,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      started.stdout!.on('data', onData);
      started.stderr!.on('data', onData);
      started.once('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
    });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useEmbeddedService: the service runs only while the tests it was set up for run');
    return value;
  };
  return {
    get baseUrl() {
      return started(baseUrl);
    },
    get output() {
      return output;
    },
    get child() {
      return started(child);
    },
  };
}
