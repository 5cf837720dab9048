import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import { browserSuite, callApi, evaluateAs, expectAccessible, newPage, PASSWORD, screenshot, signIn } from './browser.js';

describe('the agents pages', () => {
  const t = browserSuite('Agent Co');

  beforeAll(async () => {
    await callApi(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'billing-bot', environment: 'prod' }));
    await callApi(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'triage-bot', environment: 'test' }));
  });

  const names = (page: Page) => page.locator('tbody tr td:first-child').allTextContents();
  const state = (page: Page) => page.locator('.page-header .badge').textContent();

  it('creates an agent, shows the server’s complaint on the field, and walks its lifecycle', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/agents');
    await expect.poll(() => names(page)).toEqual(['triage-bot', 'billing-bot']);
    await expectAccessible(page);
    await screenshot(page, 'agents-list');

    await page.getByRole('button', { name: 'Environment' }).click();
    await page.getByRole('option', { name: 'prod' }).click();
    await expect.poll(() => names(page)).toEqual(['billing-bot']);

    await page.getByRole('button', { name: 'New agent' }).click();
    await page.getByLabel('Name').first().fill('deploy-bot');
    await page.getByLabel('Team').fill('platform');
    await page.getByLabel("Owner's role").fill('SRE lead');
    await page.getByLabel('Description').fill('Ships releases');
    await page.getByLabel('Resource scope 1').fill('repo/*');
    await page.getByLabel('Operations 1').fill('read, deploy');
    // Integration 1 is left empty: the server names the field.
    await page.getByRole('button', { name: 'Create agent' }).click();
    const integrationField = page.locator('.field', { has: page.getByLabel('Integration 1') });
    await expect.poll(() => integrationField.locator('[slot="errorMessage"]').textContent()).not.toBe('');
    expect(await page.getByLabel('Integration 1').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Integration 1').fill('github');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'deploy-bot' }).waitFor();
    expect(await page.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
      'github',
      'repo/*',
      'internal',
      'read, deploy',
    ]);
    expect(await state(page)).toBe('active');
    await expectAccessible(page);
    await screenshot(page, 'agent-detail');

    // Suspend from the keyboard alone.
    await page.getByRole('button', { name: 'Suspend' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => state(page)).toBe('suspended');

    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reactivate' }).click();
    await expect.poll(() => state(page)).toBe('active');

    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => state(page)).toBe('revoked');
    expect(await page.getByRole('button', { name: /Reactivate|Suspend|Edit/ }).count()).toBe(0);
    await context.close();
  });

  it('edits one field and sends only that', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/agents?search=triage');
    await page.getByRole('link', { name: 'triage-bot' }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Team').fill('support');
    const [patch] = await Promise.all([
      page.waitForRequest((request) => request.method() === 'PATCH'),
      page.getByRole('button', { name: 'Save changes' }).click(),
    ]);
    // The team, and the signature of whoever changed it (the agent was created by someone else).
    expect(JSON.parse(patch.postData()!)).toEqual({ team: 'support', modified_by: t.account.email, modified_at: expect.any(String) });
    await expect.poll(() => page.locator('.facts dd').nth(1).textContent()).toBe('support');
    expect(await page.locator('dd.throttle').textContent()).toBe('none');
    await context.close();
  });

  it('sets the loop guard, sending only the throttle fields that changed', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/agents?search=triage');
    await page.getByRole('link', { name: 'triage-bot' }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Identical requests per minute').fill('60');
    await page.getByRole('button', { name: 'Past a limit' }).click();
    await page.getByRole('option', { name: 'approval_required' }).click();
    const [patch] = await Promise.all([
      page.waitForRequest((request) => request.method() === 'PATCH'),
      page.getByRole('button', { name: 'Save changes' }).click(),
    ]);
    // The signature goes only if it changed: run alone, this test is the agent's first edit by this account.
    const { modified_by: _signature, ...sent } = JSON.parse(patch.postData()!);
    expect(sent).toEqual({ max_identical_requests_per_minute: 60, throttle_effect: 'approval_required', modified_at: expect.any(String) });
    await expect
      .poll(() => page.locator('dd.throttle').textContent())
      .toBe('60 identical requests a minute; past a limit: approval required');
    await expectAccessible(page);
    await context.close();
  });

  it('shows a viewer the agents, at phone width too, with nothing to change', async () => {
    const email = `viewer.${Date.now()}@example.test`;
    await callApi(t.service, t.account, 'POST', '/api/v1/users', { name: 'Val Viewer', email, password: PASSWORD, role: 'viewer' });
    const { page, context } = await newPage(t.browser, t.service.baseUrl, 'phone');
    await signIn(page, email, PASSWORD, '/agents');
    await expect.poll(() => names(page)).toEqual(['deploy-bot', 'triage-bot', 'billing-bot']);
    expect(await page.getByRole('button', { name: 'New agent' }).count()).toBe(0);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'billing-bot' }).click();
    await page.getByRole('heading', { name: 'billing-bot' }).waitFor();
    expect(await page.getByRole('button', { name: /Edit|Suspend|Revoke/ }).count()).toBe(0);
    await context.close();
  });

  it("shows each budget of the agent's rules with its use", async () => {
    const agent = await callApi<{ data: { id: string } }>(
      t.service,
      t.account,
      'POST',
      '/api/v1/agents',
      agentBody({ name: 'refund-bot' }),
    );
    const conditions = { '<=': [{ recent_sum: ['context.amount', '1h'] }, 100] };
    await callApi(t.service, t.account, 'POST', '/api/v1/policies', policyBody(agent.data.id, { policy_name: 'Refunds', conditions }));
    await evaluateAs(t.service, t.account.apiKey, { ...action(agent.data.id), context: { amount: 85 } });
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/agents/${agent.data.id}`);
    const budgets = page.locator('table.budgets tbody tr');
    await budgets.first().waitFor();
    expect(await budgets.first().locator('td').allTextContents()).toEqual([
      'Refunds',
      '{"recent_sum":["context.amount","1h"]}',
      ' 85 of 100',
    ]);
    expect(await page.getByRole('meter', { name: 'Refunds: used' }).getAttribute('value')).toBe('85');
    await expectAccessible(page);
    await context.close();
  });
});
