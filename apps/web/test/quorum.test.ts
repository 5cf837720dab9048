import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { action, agentBody } from '../../api/test/fixtures.js';
import { browserSuite, callApi, evaluateAs, expectAccessible, newPage, PASSWORD, screenshot, signIn } from './browser.js';

/** A rule that needs two reviewers: the votes as each sees them, a refused second vote, and a vote cast for a colleague away. */
describe('approvals that need more than one reviewer', () => {
  const t = browserSuite('Quorum Co');
  const ann = { name: 'Ann Approver', email: `ann.${Date.now()}@example.test` };
  const ben = { name: 'Ben Backup', email: `ben.${Date.now()}@example.test` };
  let agentId: string;

  beforeAll(async () => {
    const agent = await callApi<{ data: { id: string } }>(
      t.service,
      t.account,
      'POST',
      '/api/v1/agents',
      agentBody({ name: 'deploy-bot' }),
    );
    agentId = agent.data.id;
    for (const reviewer of [ann, ben]) {
      await callApi(t.service, t.account, 'POST', '/api/v1/users', { ...reviewer, password: PASSWORD, role: 'reviewer' });
    }
  });

  /** A request from the agent, told apart from the others by its ticket. */
  async function requestApproval(ticket: string): Promise<string> {
    const evaluation = await evaluateAs(t.service, t.account.apiKey, { ...action(agentId), context: { ticket } });
    expect(evaluation.decision).toBe('approval_required');
    return evaluation.approval_request_id!;
  }

  async function signedIn(person: { email: string }, path: string) {
    const opened = await newPage(t.browser, t.service.baseUrl);
    await signIn(opened.page, person.email, PASSWORD, path);
    return opened;
  }

  const decisionCard = (page: Page) => page.locator('.card', { has: page.getByRole('heading', { name: 'Decision' }) });
  const votes = (page: Page) => page.getByRole('list', { name: 'Votes' }).getByRole('listitem');
  const headerStatus = (page: Page) => page.locator('.page-header .badge').textContent();

  async function vote(page: Page, trigger: string, confirm: string) {
    await page.getByRole('button', { name: trigger }).click();
    await page.getByRole('dialog').getByRole('button', { name: confirm }).click();
  }

  it('sets on the rule form how many people must approve, and shows it on the rule and in its history', async () => {
    const { page, context } = await signedIn(t.account, '/policies');
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Rule name').fill('Deploys need two people');
    await page.getByLabel('Integration', { exact: true }).fill('github');
    await page.getByLabel('Operation', { exact: true }).fill('write');
    await page.getByLabel('Resource scope').fill('repo/*');
    await page.getByLabel('Rationale').fill('Two people look at every deploy.');
    await page.getByLabel('Approvals required').fill('3');
    await page.getByLabel('Escalate after (s)').fill('900');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('heading', { name: 'Deploys need two people' }).waitFor();
    const approvalsRequired = page.locator('dt:text-is("Approvals required") + dd');
    await expect.poll(() => approvalsRequired.textContent()).toBe('3 distinct people');
    expect(await page.locator('dt:text-is("Escalation") + dd').textContent()).toBe('after 900 s still pending');

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Approvals required').fill('2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => approvalsRequired.textContent()).toBe('2 distinct people');
    const changes = page.getByRole('table', { name: 'Changes from version 1 to version 2' });
    await expect
      .poll(() => changes.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent))))
      .toEqual([['approvals required', '3', '2']]);

    // Only a rule that asks for approval has approvers to count.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: /Effect/ }).click();
    await page.getByRole('option', { name: 'deny' }).click();
    expect(await page.getByLabel('Approvals required').count()).toBe(0);
    expect(await page.getByLabel('Escalate after (s)').count()).toBe(0);
    await context.close();
  });

  it('stays pending with the first approval, refuses that reviewer a second vote, and is approved by another', async () => {
    const id = await requestApproval('OPS-1');
    const first = await signedIn(ann, '/approvals');
    const row = first.page.getByRole('row', { name: /write/ });
    await expect.poll(() => row.getByRole('cell').nth(3).textContent()).toBe('pending 0/2 approvals');

    await row.getByRole('link', { name: 'write' }).click();
    await first.page.getByRole('heading', { name: 'Approval: write' }).waitFor();
    await expect.poll(() => decisionCard(first.page).getByText('Approvals: 0 of 2').count()).toBe(1);
    await first.page.getByRole('button', { name: 'Approve' }).click();
    const dialog = first.page.getByRole('dialog');
    await dialog.getByLabel('Note (optional)').fill('Diff read.');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.waitFor({ state: 'detached' });

    await expect.poll(() => decisionCard(first.page).getByText('Approvals: 1 of 2').count()).toBe(1);
    expect(await headerStatus(first.page)).toBe('pending');
    expect(await votes(first.page).allTextContents()).toEqual([
      expect.stringMatching(/^approveAnn Approver <ann\.\d+@example\.test>.*signed Ann ApproverDiff read\.$/),
    ]);
    expect(await decisionCard(first.page).getByText('Waiting for 1 more approval.').count()).toBe(1);
    await expectAccessible(first.page);
    await screenshot(first.page, 'approval-quorum');

    // The buttons stay for the others; this reviewer is told why a second vote is refused.
    await vote(first.page, 'Approve', 'Approve');
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('this person has already voted on this request');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await votes(first.page).count()).toBe(1);

    await first.page.getByRole('link', { name: 'Approvals' }).click();
    await expect.poll(() => row.getByRole('cell').nth(3).textContent()).toBe('pending 1/2 approvals');
    await first.context.close();

    const second = await signedIn(ben, `/approvals/${id}`);
    await vote(second.page, 'Approve', 'Approve');
    await expect.poll(() => headerStatus(second.page)).toBe('approved');
    expect(await second.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await decisionCard(second.page).getByText('Approvals: 2 of 2').count()).toBe(1);
    expect(await votes(second.page).locator('strong').allTextContents()).toEqual([
      `${ann.name} <${ann.email}>`,
      `${ben.name} <${ben.email}>`,
    ]);
    expect(await decisionCard(second.page).locator('dd').nth(1).textContent()).toBe(ben.name);
    await expect.poll(() => second.page.locator('.action-digest dd').nth(1).textContent()).toMatch(/^Issued, not redeemed; expires /);
    await expectAccessible(second.page);
    await second.context.close();
  });

  it('lets a reviewer delegate their votes, the delegate vote for them, and the delegator revoke it', async () => {
    const id = await requestApproval('OPS-2');
    const away = await signedIn(ann, '/');
    await away.page.getByRole('link', { name: 'Delegations' }).click();
    await away.page.getByRole('heading', { name: 'Delegations', exact: true }).waitFor();
    await expect.poll(() => away.page.locator('.empty').textContent()).toBe('No delegations in force or to come.');

    const delegateEmail = away.page.getByLabel("Delegate's e-mail");
    await delegateEmail.fill('nobody@example.test');
    await away.page.getByLabel('Until').fill(dayFromNow(7));
    await away.page.getByLabel('Reason (optional)').fill('On holiday');
    await away.page.getByRole('button', { name: 'Delegate', exact: true }).click();
    // Not someone of the organization: the service says so, on the field.
    await expect.poll(() => delegateEmail.getAttribute('aria-invalid')).toBe('true');
    await delegateEmail.fill(ben.email);
    await away.page.getByRole('button', { name: 'Delegate', exact: true }).click();
    const row = away.page.getByRole('row', { name: /On holiday/ });
    await expect.poll(() => row.getByRole('cell').first().textContent()).toBe(`${ann.name} (you)${ann.email}`);
    expect(await row.getByRole('cell').nth(1).textContent()).toBe(`${ben.name}${ben.email}`);
    expect(await delegateEmail.inputValue()).toBe('');
    await expectAccessible(away.page);
    await screenshot(away.page, 'delegations');

    const delegate = await signedIn(ben, `/approvals/${id}`);
    await delegate.page.getByRole('button', { name: `Vote for ${ann.name}` }).click();
    const dialog = delegate.page.getByRole('dialog');
    await dialog.getByLabel('Note (optional)').fill('For Ann, as agreed.');
    await dialog.getByRole('button', { name: 'Cast vote' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(() => votes(delegate.page).locator('strong').allTextContents())
      .toEqual([`${ben.name} <${ben.email}> for ${ann.name} <${ann.email}>`]);
    expect(await decisionCard(delegate.page).getByText('Approvals: 1 of 2').count()).toBe(1);
    expect(await headerStatus(delegate.page)).toBe('pending');
    await expectAccessible(delegate.page);

    await away.page.getByRole('button', { name: `Revoke delegation to ${ben.name}` }).click();
    await away.page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => away.page.locator('.empty').textContent()).toBe('No delegations in force or to come.');
    await delegate.page.reload();
    await delegate.page.getByRole('heading', { name: 'Approval: write' }).waitFor();
    await delegate.page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await delegate.page.getByRole('button', { name: `Vote for ${ann.name}` }).count()).toBe(0);
    await Promise.all([away.context.close(), delegate.context.close()]);
  });
});

/** A calendar day `days` from today, as a date input takes it (`YYYY-MM-DD`, local time, as the browser's). */
function dayFromNow(days: number): string {
  const day = new Date(Date.now() + days * 86_400_000);
  return [day.getFullYear(), day.getMonth() + 1, day.getDate()].map((part) => String(part).padStart(2, '0')).join('-');
}
