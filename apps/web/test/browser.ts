import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../../../test/chromium.js';
import { afterAll, beforeAll, expect } from 'vitest';
export { launchBrowser };
import { freePort, startProcess, type Started } from '../../../test/processes.js';

const ARTIFACTS = fileURLToPath(new URL('../test-results/', import.meta.url));
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const PASSWORD = 'correct horse battery staple';

export interface Service {
  baseUrl: string;
  stop(): Promise<void>;
}

/** The built service (`npm start`'s build, made by the test setup) in embedded mode on a port of its own. */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agov-web-'));
  const port = await freePort();
  let started: Started;
  try {
    started = await startProcess(
      process.execPath,
      ['apps/api/dist/main.js'],
      { NODE_ENV: 'production', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
      /agent governance api ready/,
      60_000,
    );
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      await started.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Width = 'desktop' | 'phone';
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

export async function newPage(
  browser: Browser,
  baseUrl: string,
  width: Width = 'desktop',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: VIEWPORTS[width] });
  const page = await context.newPage();
  return { context, page };
}

export interface Account {
  email: string;
  password: string;
  tenantId: string;
  /** The agent-runtime key made at signup, for driving the API as an agent would. */
  apiKey: string;
  /** The admin's session, for setting things up through the API. */
  cookie: string;
}

/** A new organisation through the API, as a test's starting point. */
export async function signUp(service: Service, organization = 'Acme'): Promise<Account> {
  const email = `admin.${Date.now()}.${Math.random().toString(36).slice(2)}@example.test`;
  const response = await fetch(`${service.baseUrl}/api/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organization_name: organization, name: 'Ada Admin', email, password: PASSWORD }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { tenant: { id: string }; api_key: { key: string } } };
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
  return { email, password: PASSWORD, tenantId: data.tenant.id, apiKey: data.api_key.key, cookie };
}

/** Calls the API with the admin's session, as the dashboard does. */
export async function callApi<T = unknown>(service: Service, account: Account, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: {
      cookie: account.cookie,
      'x-requested-with': 'XMLHttpRequest',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.ok, `${method} ${path}: ${response.status} ${text}`).toBe(true);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Signs in through the sign-in page and waits for the dashboard. */
export async function signIn(page: Page, email: string, password = PASSWORD, path = '/') {
  await page.goto(path);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/**
 * axe-core's verdict on the page as it stands: no serious or critical violation. axe is run
 * from the test's side: the page's policy refuses a script tag added to it.
 */
export async function expectAccessible(page: Page) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    // Runs in the page, where axe is the script just evaluated.
    // biome-ignore lint/suspicious/noExplicitAny: the page's globals are not this file's types.
    const inPage = globalThis as any;
    const result = await inPage.axe.run(inPage.document, { resultTypes: ['violations'] });
    return (result.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[])
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
  expect(violations).toEqual([]);
}

/** What the watch below uses of a page: this project's types are Node's, not the DOM's. */
interface WatchedPage {
  document: {
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { effectiveDirective: string; blockedURI: string; sourceFile: string; lineNumber: number }) => void,
    ): void;
  };
  reportPolicyViolation(violation: string): void;
}

/**
 * Every Content-Security-Policy violation the context's pages report, from before their first
 * script runs: the `securitypolicyviolation` events, and Chromium's messages about the policy.
 */
export async function policyViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeFunction('reportPolicyViolation', (violation: string) => violations.push(violation));
  await context.addInitScript(() => {
    // Runs in the page, where the function exposed above is a global.
    const page = globalThis as unknown as WatchedPage;
    page.document.addEventListener('securitypolicyviolation', (event) =>
      page.reportPolicyViolation(`${event.effectiveDirective} refused ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`),
    );
  });
  context.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  return violations;
}

/** A screenshot kept as a test artifact in apps/web/test-results. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

export interface Suite {
  service: Service;
  browser: Browser;
  /** The organisation signed up for the file's tests. */
  account: Account;
}

/** A test file's service (with `env` beside the defaults), browser and organisation: started before its tests, stopped after them. */
export function browserSuite(organization: string, env: Record<string, string> = {}): Suite {
  const suite = {} as Suite;
  beforeAll(async () => {
    [suite.service, suite.browser] = await Promise.all([startService(env), launchBrowser()]);
    suite.account = await signUp(suite.service, organization);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.service?.stop();
  });
  return suite;
}

/** What an agent runtime does: asks POST /api/v1/evaluate with its API key. */
export async function evaluateAs<T = { decision: string; trace_id: string; approval_request_id: string | null }>(
  service: Service,
  apiKey: string,
  body: unknown,
): Promise<T> {
  const response = await fetch(`${service.baseUrl}/api/v1/evaluate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}

/** What an agent runtime does once it has acted: reports the outcome of the trace with its API key. */
export async function recordOutcomeAs(
  service: Service,
  apiKey: string,
  traceId: string,
  outcome: { status: 'success' | 'error'; metadata?: Record<string, unknown> },
) {
  const response = await fetch(`${service.baseUrl}/api/v1/traces/${traceId}/outcome`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(outcome),
  });
  expect(response.status, await response.text()).toBe(204);
}
