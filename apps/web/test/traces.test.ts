import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import { callApi, expectAccessible, newPage, PASSWORD, screenshot, signIn, browserSuite, evaluateAs } from './browser.js';

describe('the traces page', () => {
  const t = browserSuite('Trace Co');

  beforeAll(async () => {
    const agent = await callApi<{ data: { id: string } }>(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'ops-bot' }));
    const rules = [
      { operation: 'read', policy_effect: 'allow', policy_name: 'Reads are fine' },
      { operation: 'delete', policy_effect: 'deny', policy_name: 'No deletes' },
      { operation: 'write', policy_effect: 'approval_required', policy_name: 'Writes need a human' },
    ];
    for (const rule of rules) await callApi(t.service, t.account, 'POST', '/api/v1/policies', policyBody(agent.data.id, rule));
    for (const operation of ['read', 'delete', 'write']) {
      await evaluateAs(t.service, t.account.apiKey, action(agent.data.id, { operation }));
    }
  });

  const operations = (page: import('playwright-core').Page) =>
    page.locator('tbody tr td:nth-child(3)').evaluateAll((cells) => cells.map((cell) => cell.childNodes[0]?.textContent));

  it('lists every trace, narrows them by outcome, and exports them', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/traces');
    await expect.poll(() => operations(page)).toEqual(['write', 'delete', 'read']);
    expect(await page.locator('tbody tr td:nth-child(4)').allTextContents()).toEqual(['in progress', 'denied', 'in progress']);
    const eventCount = (await page.locator('tbody tr td:nth-child(6)').allTextContents()).reduce((sum, count) => sum + Number(count), 0);
    await expectAccessible(page);
    await screenshot(page, 'traces');

    await page.getByRole('button', { name: /Outcome/ }).click();
    await page.getByRole('option', { name: 'denied' }).click();
    await expect.poll(() => operations(page)).toEqual(['delete']);
    expect(new URL(page.url()).searchParams.get('outcome')).toBe('denied');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Audit events (CSV)' }).click()]);
    const [header, ...rows] = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(header).toBe(
      'event_id,trace_id,agent_id,event_type,actor_type,actor_name,description,status,timestamp,policy_version,integrity_hash',
    );
    // The audit export is of the whole period, not the outcome filter: every event of the three traces.
    expect(rows).toHaveLength(eventCount);
    await context.close();
  });

  it('shows a viewer the traces at phone width, without export buttons', async () => {
    const email = `viewer.${Date.now()}@example.test`;
    await callApi(t.service, t.account, 'POST', '/api/v1/users', { name: 'Vic Viewer', email, password: PASSWORD, role: 'viewer' });
    const { page, context } = await newPage(t.browser, t.service.baseUrl, 'phone');
    await signIn(page, email, PASSWORD, '/traces');
    await expect.poll(() => operations(page)).toEqual(['write', 'delete', 'read']);
    expect(await page.getByRole('link', { name: /Export|Audit events/ }).count()).toBe(0);
    await expectAccessible(page);
    await context.close();
  });
});
