import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToExit, startProcess, type Started } from '../../../test/processes.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Embedded PostgreSQL is one process per data directory (CONTRACT "Running it"). */
describe('a data directory in use', () => {
  let dataDir: string;
  let first: Started | null = null;
  const env = () => ({ NODE_ENV: 'production', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const startApi = () => startProcess(process.execPath, ['apps/api/dist/main.js'], env(), /listening at http/);
  const baseUrlOf = (api: Started) => /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(api.output())![1]!;
  const credentials = { email: 'lock@example.test', password: 'a long enough password' };

  beforeAll(() => {
    execFileSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'pipe' });
    dataDir = mkdtempSync(join(tmpdir(), 'agov-lock-'));
  });
  afterAll(async () => {
    await first?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second API and a migration at once, naming the directory and the holder, and the data stays readable', async () => {
    first = await startApi();
    const signup = await fetch(`${baseUrlOf(first)}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization_name: 'Locked', name: 'Lou', ...credentials }),
    });
    expect(signup.status).toBe(201);

    const holder = first.child.pid!;
    const second = await runToExit(process.execPath, ['apps/api/dist/main.js'], env());
    expect(second.code).not.toBe(0);
    expect(second.output).toContain(`${dataDir} is in use by process ${holder}`);

    const migration = await runToExit(process.execPath, ['packages/db/dist/cli/migrate.js'], env());
    expect(migration.code).not.toBe(0);
    expect(migration.output).toContain(`${dataDir} is in use by process ${holder}`);

    // Stopped cleanly, the first lets the directory go; the next one finds everything.
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(dataDir, 'agov.lock'))).toBe(false);
    first = await startApi();
    const login = await fetch(`${baseUrlOf(first)}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    expect(login.status).toBe(200);
    expect(((await login.json()) as { data: { tenant: { name: string } } }).data.tenant.name).toBe('Locked');
  });

  it('takes over a directory whose holder died without letting go', async () => {
    await first?.stop('SIGKILL');
    expect(existsSync(join(dataDir, 'agov.lock'))).toBe(true);
    first = await startApi();
    const health = await fetch(`${baseUrlOf(first)}/health`);
    expect(health.status).toBe(200);
  });
});
