import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionDigest } from '../../../packages/sdk/src/index.js';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import {
  evaluateAs,
  expectAccessible,
  launchBrowser,
  newPage,
  PASSWORD,
  screenshot,
  type Service,
  signIn,
  startService,
} from './browser.js';

/** The path people take every day: an agent asks, a reviewer approves, the trace is closed, verified and exported. */
describe('reviewing an approval from request to export', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  /** A call with the page's own session, as the dashboard makes it. */
  async function asSignedIn(page: Page, method: 'post', path: string, body: unknown) {
    const response = await page.request[method](path, { data: body, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect(response.status(), await response.text()).toBe(201);
    return (await response.json()).data as { id: string };
  }

  it('signs up, sees the evaluation arrive in the queue, approves it, and exports the verified trace', async () => {
    const { page, context } = await newPage(browser, service.baseUrl);
    await page.goto('/sign-up');
    await page.getByLabel('Organisation').fill('Review Co');
    await page.getByLabel('Your name').fill('Rita Reviewer');
    await page.getByLabel('E-mail').fill('rita@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create organisation' }).click();
    const apiKey = (await page.locator('code.secret').textContent())!;
    await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();

    const agent = await asSignedIn(page, 'post', '/api/v1/agents', agentBody({ name: 'deploy-bot' }));
    await asSignedIn(
      page,
      'post',
      '/api/v1/policies',
      policyBody(agent.id, {
        policy_effect: 'approval_required',
        policy_name: 'Writes need a human',
        rationale: 'Repository writes need a human.',
      }),
    );

    await page.getByRole('link', { name: 'Approvals' }).click();
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No pending approval requests.');

    // The agent asks, through the API, while the reviewer watches the queue.
    const evaluation = await evaluateAs(service, apiKey, { ...action(agent.id), context: { ticket: 'OPS-7' } });
    expect(evaluation.decision).toBe('approval_required');

    const row = page.getByRole('row', { name: /write/ });
    await row.waitFor({ timeout: 15_000 });
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('deploy-bot');
    // The count refreshes on its own schedule, not the list's.
    await expect.poll(() => page.locator('.count').first().textContent(), { timeout: 15_000 }).toBe('1 pending');
    await expectAccessible(page);
    await screenshot(page, 'approvals-queue');

    await row.getByRole('link', { name: 'write' }).click();
    await page.getByRole('heading', { name: 'Approval: write' }).waitFor();
    expect(await page.getByText('Repository writes need a human.').count()).toBe(1);
    expect(await page.locator('section > pre.json').textContent()).toBe(JSON.stringify({ ticket: 'OPS-7' }, null, 2));
    const digest = page.locator('dd', { has: page.getByRole('button', { name: 'Copy digest' }) }).locator('code');
    expect(await digest.textContent()).toBe(await actionDigest({ ...action(agent.id), context: { ticket: 'OPS-7' } }));
    await expectAccessible(page);
    await screenshot(page, 'approval-detail');

    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Note (optional)').fill('Checked the ticket.');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.waitFor({ state: 'detached' });

    const decision = page.locator('.card', { has: page.getByRole('heading', { name: 'Decision' }) });
    await expect
      .poll(() => decision.locator('dd').allTextContents())
      .toEqual(['approved', 'Rita Reviewer', expect.any(String), 'Checked the ticket.']);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    await page.getByRole('link', { name: 'open' }).click();
    await page.getByRole('heading', { name: 'Trace: write' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/traces/${evaluation.trace_id}`);
    await expect.poll(() => page.locator('.badge', { hasText: 'Chain' }).textContent()).toBe('Chain verified (8 events)');
    expect(await page.locator('.facts dd').first().textContent()).toBe('completed with approval');
    expect(await page.locator('.timeline > li strong').allTextContents()).toEqual([
      'trace initiated',
      'identity resolved',
      'policy evaluated',
      'sensitive operation detected',
      'approval requested',
      'approval granted',
      'operation allowed',
      'trace closed',
    ]);
    await expectAccessible(page);
    await screenshot(page, 'trace-detail');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export JSON' }).click()]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(exported.trace.id).toBe(evaluation.trace_id);
    expect(exported.events).toHaveLength(8);
    expect(exported.approval_requests).toMatchObject([
      { id: evaluation.approval_request_id, status: 'approved', decision_note: 'Checked the ticket.' },
    ]);
    await context.close();

    // The link an e-mail or a chat card carries, opened on a phone by someone signed out.
    const phone = await newPage(browser, service.baseUrl, 'phone');
    const link = `/approvals/${evaluation.approval_request_id}`;
    await phone.page.goto(link);
    await expect.poll(() => phone.page.url()).toBe(`${service.baseUrl}/sign-in?next=${encodeURIComponent(link)}`);
    await signIn(phone.page, 'rita@example.test', PASSWORD, phone.page.url());
    await phone.page.getByRole('heading', { name: 'Approval: write' }).waitFor();
    expect(new URL(phone.page.url()).pathname).toBe(link);
    await expectAccessible(phone.page);
    await phone.page.getByRole('link', { name: 'Approvals' }).click();
    await phone.page.getByRole('button', { name: 'Status' }).click();
    await phone.page.getByRole('option', { name: 'Approved' }).click();
    await expect.poll(() => phone.page.locator('tbody tr td:nth-child(4)').allTextContents()).toEqual(['approved']);
    await expectAccessible(phone.page);
    await phone.context.close();
  });
});
