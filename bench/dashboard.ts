/**
 * How fast the dashboard's first pages become usable: the built service in embedded mode (as
 * `npm start` runs it), Debian's Chromium, a new browser context per run. Measured in the
 * page, from navigation start: the sign-in page, with nothing cached, until its button is
 * there and enabled; then, signed in, the overview (its scripts now cached, as for anyone
 * who has signed in before) until its pending count is shown. Also the gzipped size of the
 * JavaScript the first page loads (the entry and the modules it preloads).
 *
 * Environment: BENCH_RUNS (default 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { spawn } from 'node:child_process';
import { launchBrowser } from '../test/chromium.js';
import { freePort, TEST_ENV } from '../test/processes.js';
import { build, root, signUp, waitUntilHealthy } from './support.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);

async function main() {
  build();
  const dataDir = mkdtempSync(join(tmpdir(), 'agov-bench-web-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['apps/api/dist/main.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...TEST_ENV,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const browser = await launchBrowser();
  try {
    await waitUntilHealthy('service', child, `${base}/health`);
    await signUp(base);
    console.log(`first page JavaScript: ${((await firstPageScriptBytes(base)) / 1024).toFixed(1)} KiB gzipped`);

    const rows = [];
    for (let run = 1; run <= runs; run += 1) {
      const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto('/sign-in');
      await page.waitForSelector('button[type="submit"]:not([data-disabled])');
      const signInMs = await page.evaluate(() => performance.now());
      await page.getByLabel('E-mail').fill('bench@example.test');
      await page.getByLabel('Password').fill('a long bench password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await page.goto('/');
      await page.locator('.figure', { hasText: /\d+ pending/ }).waitFor();
      const overviewMs = await page.evaluate(() => performance.now());
      rows.push({ run, 'sign-in page usable (cold), ms': Math.round(signInMs), 'overview with its data, ms': Math.round(overviewMs) });
      await context.close();
    }
    console.table(rows);
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The entry script and every module index.html preloads, each gzipped as a server would send it. */
async function firstPageScriptBytes(base: string): Promise<number> {
  const html = await (await fetch(`${base}/`)).text();
  const scripts = [...html.matchAll(/<script type="module"[^>]* src="([^"]+)"|<link rel="modulepreload"[^>]* href="([^"]+)"/g)].map(
    (m) => m[1] ?? m[2]!,
  );
  let bytes = 0;
  for (const script of scripts) bytes += gzipSync(Buffer.from(await (await fetch(`${base}${script}`)).arrayBuffer())).length;
  return bytes;
}

await main();
