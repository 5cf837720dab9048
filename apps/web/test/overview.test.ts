import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import { callApi, expectAccessible, newPage, screenshot, signIn, browserSuite, evaluateAs } from './browser.js';

describe('the overview', () => {
  const t = browserSuite('Overview Co');

  it('says what to do first, then counts the decisions of the week by outcome', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email);
    await expect.poll(() => page.locator('.notice-info').textContent()).toContain('No evaluations yet.');
    expect(await page.locator('.figure').textContent()).toBe('0 pending');

    const agent = await callApi<{ data: { id: string } }>(t.service, t.account, 'POST', '/api/v1/agents', agentBody());
    for (const [operation, policy_effect] of [
      ['read', 'allow'],
      ['delete', 'deny'],
      ['write', 'approval_required'],
    ]) {
      await callApi(t.service, t.account, 'POST', '/api/v1/policies', policyBody(agent.data.id, { operation, policy_effect }));
    }
    for (const operation of ['read', 'read', 'read', 'delete', 'delete', 'write', 'write'])
      await evaluateAs(t.service, t.account.apiKey, action(agent.data.id, { operation }));
    const { data: pending } = await callApi<{ data: { id: string }[] }>(t.service, t.account, 'GET', '/api/v1/approvals?status=pending');
    await callApi(t.service, t.account, 'POST', `/api/v1/approvals/${pending[0]!.id}/approve`, { approver_name: 'Ada Admin' });

    await page.reload();
    await expect.poll(() => page.locator('.figure').textContent()).toBe('1 pending');
    const table = page.getByRole('table', { name: 'Decisions per day by outcome' });
    await expect
      .poll(() => table.locator('thead th').allTextContents())
      .toEqual(['Day', 'in progress', 'denied', 'completed with approval']);
    const today = new Date().toISOString().slice(0, 10);
    expect(await table.getByRole('row', { name: today }).locator('td').allTextContents()).toEqual(['4', '2', '1']);
    await page.locator('.recharts-wrapper').waitFor();
    expect(await page.locator('.facts dt').allTextContents()).toEqual(['Median', '90th percentile']);
    await expectAccessible(page);
    await screenshot(page, 'overview');
    await context.close();

    const phone = await newPage(t.browser, t.service.baseUrl, 'phone');
    await signIn(phone.page, t.account.email);
    await phone.page.getByRole('table', { name: 'Decisions per day by outcome' }).waitFor();
    await expectAccessible(phone.page);
    await phone.context.close();
  });

  it('sends the first page compressed, its scripts as brotli, under 150 KiB as Chromium receives it', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    const finished: Request[] = [];
    page.on('requestfinished', (request) => finished.push(request));
    await page.goto('/sign-in');
    await page.waitForSelector('button[type="submit"]:not([data-disabled])');
    await page.waitForLoadState('networkidle');

    const scripts = finished.filter((request) => request.resourceType() === 'script');
    expect(scripts.length).toBeGreaterThan(1);
    for (const script of scripts) expect((await script.response())!.headers()['content-encoding'], script.url()).toBe('br');
    let bytes = 0;
    for (const request of finished) {
      const sizes = await request.sizes();
      bytes += sizes.responseHeadersSize + sizes.responseBodySize;
    }
    expect(bytes).toBeLessThan(150 * 1024);
    await context.close();
  });
});
