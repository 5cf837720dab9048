import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import { browserSuite, callApi, evaluateAs, newPage, PASSWORD, policyViolations, signIn } from './browser.js';

/** The dashboard and the API reference, as served, under the policy the service sends. */
describe('the Content-Security-Policy', () => {
  const t = browserSuite('Policy Co');

  /** A call with the page's own session, as the dashboard makes it. */
  async function create(page: Page, path: string, body: unknown) {
    const response = await page.request.post(path, { data: body, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect(response.status(), await response.text()).toBe(201);
    return (await response.json()).data as { id: string; key?: string };
  }

  async function visit(page: Page, link: string, heading: string | RegExp) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  it('lets every main page of the dashboard run, from sign-up to settings, without a violation', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    const violations = await policyViolations(context);

    await page.goto('/sign-up');
    await page.getByLabel('Organisation').fill('Walk Co');
    await page.getByLabel('Your name').fill('Wanda Walker');
    await page.getByLabel('E-mail').fill('wanda@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create organisation' }).click();
    const apiKey = (await page.locator('code.secret').textContent())!;
    await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    const agent = await create(page, '/api/v1/agents', agentBody({ name: 'walk-bot' }));
    const rule = await create(
      page,
      '/api/v1/policies',
      policyBody(agent.id, { policy_effect: 'approval_required', policy_name: 'Writes need a human' }),
    );
    const evaluation = await evaluateAs(t.service, apiKey, action(agent.id));

    await visit(page, 'Approvals', 'Approvals');
    await page.getByRole('row', { name: /write/ }).getByRole('link', { name: 'write' }).click();
    await page.getByRole('heading', { name: 'Approval: write' }).waitFor();
    // A dialog: React Aria's overlay, focus trap and scroll lock.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await visit(page, 'Delegations', 'Delegations');

    await visit(page, 'Traces', 'Traces');
    await page.goto(`/traces/${evaluation.trace_id}`);
    await expect.poll(() => page.locator('.badge', { hasText: 'Chain' }).textContent()).toMatch(/^Chain verified/);

    await visit(page, 'Agents', 'Agents');
    await page.getByRole('link', { name: 'walk-bot' }).click();
    await page.getByRole('heading', { name: 'walk-bot', level: 1 }).waitFor();

    await visit(page, 'Policies', 'Policies');
    await page.goto(`/policies/${rule.id}`);
    await page.getByRole('heading', { name: 'Writes need a human', level: 1 }).waitFor();

    await visit(page, 'API keys', 'API keys');
    await visit(page, 'Webhooks', 'Webhooks');
    await visit(page, 'Users', 'Users');
    await visit(page, 'Settings', 'Settings');
    // The overview's chart (Recharts draws SVG with styles of its own).
    await visit(page, 'Overview', 'Overview');
    await page.locator('.recharts-wrapper').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(page, 'wanda@example.test');

    expect(violations).toEqual([]);
    await context.close();
  });

  it('lets the scroll lock React Aria adds on an iPhone while a dialog is open', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl, 'phone');
    const violations = await policyViolations(context);
    // React Aria reads the platform here, and locks scrolling with a <style> element only on iOS.
    await context.addInitScript(() => {
      const { Navigator } = globalThis as unknown as { Navigator: { prototype: object } };
      Object.defineProperty(Navigator.prototype, 'userAgentData', { get: () => undefined });
      Object.defineProperty(Navigator.prototype, 'platform', { get: () => 'iPhone' });
    });
    const agent = await callApi<{ data: { id: string } }>(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'phone-bot' }));
    await signIn(page, t.account.email, PASSWORD, `/agents/${agent.data.id}`);
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.getByRole('dialog').waitFor();
    // Present, and no violation: the policy let it in.
    expect(await page.locator('head style').allTextContents()).toContainEqual(expect.stringContaining('overscroll-behavior: contain'));
    expect(violations).toEqual([]);
    await context.close();
  });

  it('lets the API reference at /docs show its operations without a violation', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    const violations = await policyViolations(context);
    await page.goto('/docs');
    await page.getByRole('heading', { name: /Agent Governance API/ }).waitFor();
    const evaluate = page.locator('.opblock', { hasText: '/api/v1/evaluate' }).first();
    await evaluate.locator('.opblock-summary').click();
    await evaluate.getByRole('button', { name: 'Try it out' }).waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });

  it('refuses a script written into a page, and the watch reports it', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    const violations = await policyViolations(context);
    await page.goto('/sign-in');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expect(page.addScriptTag({ content: 'document.title = "injected"' })).rejects.toThrow(/Content Security Policy/);
    await expect.poll(() => violations.some((violation) => violation.startsWith('script-src-elem refused inline'))).toBe(true);
    expect(await page.title()).toBe('Agent Governance');
    await context.close();
  });
});
