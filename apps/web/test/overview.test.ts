import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import {
  type Account,
  callApi,
  expectAccessible,
  launchBrowser,
  newPage,
  screenshot,
  type Service,
  signIn,
  signUp,
  startService,
} from './browser.js';

describe('the overview', () => {
  let service: Service;
  let browser: Browser;
  let account: Account;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService(), launchBrowser()]);
    account = await signUp(service, 'Overview Co');
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const evaluate = async (agentId: string, operation: string) => {
    const response = await fetch(`${service.baseUrl}/api/v1/evaluate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(action(agentId, { operation })),
    });
    return (await response.json()) as { decision: string; approval_request_id: string | null };
  };

  it('says what to do first, then counts the decisions of the week by outcome', async () => {
    const { page, context } = await newPage(browser, service.baseUrl);
    await signIn(page, account.email);
    await expect.poll(() => page.locator('.notice-info').textContent()).toContain('No evaluations yet.');
    expect(await page.locator('.figure').textContent()).toBe('0 pending');

    const agent = await callApi<{ data: { id: string } }>(service, account, 'POST', '/api/v1/agents', agentBody());
    for (const [operation, policy_effect] of [
      ['read', 'allow'],
      ['delete', 'deny'],
      ['write', 'approval_required'],
    ]) {
      await callApi(service, account, 'POST', '/api/v1/policies', policyBody(agent.data.id, { operation, policy_effect }));
    }
    for (const operation of ['read', 'read', 'read', 'delete', 'delete', 'write', 'write']) await evaluate(agent.data.id, operation);
    const { data: pending } = await callApi<{ data: { id: string }[] }>(service, account, 'GET', '/api/v1/approvals?status=pending');
    await callApi(service, account, 'POST', `/api/v1/approvals/${pending[0]!.id}/approve`, { approver_name: 'Ada Admin' });

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

    const phone = await newPage(browser, service.baseUrl, 'phone');
    await signIn(phone.page, account.email);
    await phone.page.getByRole('table', { name: 'Decisions per day by outcome' }).waitFor();
    await expectAccessible(phone.page);
    await phone.context.close();
  });

  it('loads under 250 KiB of gzipped JavaScript for the first page', async () => {
    const html = await (await fetch(`${service.baseUrl}/`)).text();
    const scripts = [...html.matchAll(/<script type="module"[^>]* src="([^"]+)"|<link rel="modulepreload"[^>]* href="([^"]+)"/g)].map(
      (m) => m[1] ?? m[2]!,
    );
    expect(scripts.length).toBeGreaterThan(1);
    let bytes = 0;
    for (const script of scripts) bytes += gzipSync(Buffer.from(await (await fetch(`${service.baseUrl}${script}`)).arrayBuffer())).length;
    expect(bytes).toBeLessThan(250 * 1024);
  });
});
