/**
 * How heavy and how fast the dashboard's first pages are: the built service in embedded mode
 * (as `npm start` runs it), Debian's Chromium, a new browser context per run. Per run: the
 * bytes Chromium received for the sign-in page with nothing cached (every response, headers
 * and encoded bodies, as DevTools counts "transferred"), and how soon it is usable, from
 * navigation start until its button is there and enabled; then, signed in, how soon the
 * overview (its shared scripts now cached, as for anyone who has signed in before) shows its
 * pending count; and, in a context of its own with the session and nothing cached, the bytes
 * of the overview once its chart is drawn.
 *
 * Environment: BENCH_RUNS (default 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../test/chromium.js';
import { freePort, TEST_ENV } from '../test/processes.js';
import { build, call, root, signUp, waitUntilHealthy } from './support.js';
import { agentBody, benchAction } from './tenant.js';

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
    const { email, headers, runtimeKey } = await signUp(base);
    // One decision, so the overview has a week to chart.
    const agent = await call(base, '/api/v1/agents', { method: 'POST', headers, body: agentBody('overview-bot') });
    await call(base, '/api/v1/evaluate', {
      method: 'POST',
      headers: { authorization: `Bearer ${runtimeKey}` },
      body: { agent_id: agent.body.data.id, ...benchAction },
    });

    const rows = [];
    for (let run = 1; run <= runs; run += 1) {
      const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const received = await transferred(page);
      await page.goto('/sign-in');
      await page.waitForSelector('button[type="submit"]:not([data-disabled])');
      const signInMs = await page.evaluate(() => performance.now());
      const signInBytes = await received();
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill('a long bench password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await page.goto('/');
      await page.locator('.figure', { hasText: /\d+ pending/ }).waitFor();
      const overviewMs = await page.evaluate(() => performance.now());
      await context.close();

      rows.push({
        run,
        'sign-in page (cold), KiB': kib(signInBytes),
        'sign-in page usable (cold), ms': Math.round(signInMs),
        'overview with its data, ms': Math.round(overviewMs),
        'overview and chart, signed in (cold), KiB': kib(await overviewBytes(browser, base, headers.cookie)),
      });
    }
    console.table(rows);
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const kib = (bytes: number) => Number((bytes / 1024).toFixed(1));

/** The overview opened with a session and nothing cached, until its chart is drawn. */
async function overviewBytes(browser: Browser, base: string, cookie: string): Promise<number> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: base }]);
  const page = await context.newPage();
  const received = await transferred(page);
  await page.goto('/');
  await page.locator('.recharts-wrapper').waitFor();
  const bytes = await received();
  await context.close();
  return bytes;
}

/**
 * What Chromium has received for the page so far, as DevTools' "transferred" counts it: each
 * response's headers and body as it came over the wire (compressed, if it was sent so), from
 * `Network.loadingFinished`. The returned function first waits a little for requests still
 * under way (the queue's count is polled all the time, and a request the page dropped may
 * never report its end).
 */
async function transferred(page: Page): Promise<() => Promise<number>> {
  const cdp = await page.context().newCDPSession(page);
  const pending = new Set<string>();
  let bytes = 0;
  cdp.on('Network.requestWillBeSent', ({ requestId }) => pending.add(requestId));
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    pending.delete(requestId);
    bytes += encodedDataLength;
  });
  cdp.on('Network.loadingFailed', ({ requestId }) => pending.delete(requestId));
  await cdp.send('Network.enable');
  return async () => {
    for (let waited = 0; pending.size > 0 && waited < 1_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    return bytes;
  };
}

await main();
