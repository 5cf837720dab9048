import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentBody, policyBody } from '../../api/test/fixtures.js';
import { callApi, evaluateAs, expectAccessible, newPage, PASSWORD, screenshot, signIn, browserSuite } from './browser.js';

describe('the policies pages', () => {
  const t = browserSuite('Policy Co');
  let agentId: string;

  beforeAll(async () => {
    agentId = (await callApi<{ data: { id: string } }>(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'release-bot' })))
      .data.id;
  });

  async function save(page: Page, field: string, value: string) {
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel(field).fill(value);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('button', { name: 'Save changes' }).waitFor({ state: 'detached' });
  }

  it('creates a rule, edits it twice, compares versions, tries an action, and deactivates it', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/policies');
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Rule name').fill('Deploys need a human');
    await page.getByLabel('Integration', { exact: true }).fill('github');
    await page.getByLabel('Operation', { exact: true }).fill('deploy');
    await page.getByLabel('Resource scope').fill('repo/*');
    await page.getByLabel('Rationale').fill('short');
    await page.getByRole('button', { name: 'Create rule' }).click();
    // 10 characters at least: the server says so, on the field.
    await expect.poll(() => page.getByLabel('Rationale').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Rationale').fill('Production deploys need a second pair of eyes.');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('heading', { name: 'Deploys need a human' }).waitFor();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required version 1, active');

    await save(page, 'Priority', '250');
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required version 2, active');
    await save(page, 'Rationale', 'Deploys to production need a reviewer.');
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required version 3, active');

    await expect.poll(() => page.locator('table').first().locator('tbody td:first-child').allTextContents()).toEqual(['3', '2', '1']);
    const changes = page.getByRole('table', { name: 'Changes from version 1 to version 3' });
    await expect
      .poll(() => changes.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent))))
      .toEqual([
        ['rationale', 'Production deploys need a second pair of eyes.', 'Deploys to production need a reviewer.'],
        ['priority', '100', '250'],
      ]);
    await expectAccessible(page);
    await screenshot(page, 'policy-detail');

    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByLabel('Operation to test').fill('deploy');
    await page.getByLabel('Integration to test').fill('github');
    await page.getByLabel('Resource to test').fill('repo/web');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await expect
      .poll(() => page.locator('output').textContent())
      .toBe('approval required Deploys to production need a reviewer. (rule, version 3)');
    await expectAccessible(page);
    await screenshot(page, 'policies-list');

    await page.getByRole('link', { name: 'Deploys need a human' }).click();
    await page.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required version 3, inactive');
    await context.close();
  });

  it('creates a shadow rule, shows what it would have changed, enforces it, and puts it back in shadow', async () => {
    await callApi(t.service, t.account, 'POST', '/api/v1/policies', {
      ...policyBody(agentId, { policy_name: 'Docs are open', operation: 'read', resource_scope: 'docs/*' }),
    });
    const docsRead = {
      agent_id: agentId,
      operation: 'read',
      target_integration: 'github',
      resource_scope: 'docs/readme',
      data_classification: 'internal',
    };
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/policies');
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Rule name').fill('Docs reads need a look');
    await page.getByLabel('Integration', { exact: true }).fill('github');
    await page.getByLabel('Operation', { exact: true }).fill('read');
    await page.getByLabel('Resource scope').fill('docs/*');
    await page.getByLabel('Rationale').fill('Someone should see what the agent reads.');
    await page.getByText('Shadow mode').click();
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('heading', { name: 'Docs reads need a look' }).waitFor();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required shadow version 1, active');

    const traces = [await evaluateAs(t.service, t.account.apiKey, docsRead), await evaluateAs(t.service, t.account.apiKey, docsRead)];
    expect(traces.map((trace) => trace.decision)).toEqual(['allow', 'allow']);

    await page.getByRole('link', { name: 'shadow report' }).click();
    const row = page.getByRole('row', { name: /Docs reads need a look/ });
    await expect
      .poll(() => row.locator('td').evaluateAll((cells) => cells.map((cell) => cell.textContent)))
      .toEqual([
        'Docs reads need a look',
        '2',
        'allow → approval required: 2',
        `${traces[1]!.trace_id.slice(0, 8)}${traces[0]!.trace_id.slice(0, 8)}`,
      ]);
    await expectAccessible(page);
    await screenshot(page, 'shadow-report');
    await row.getByRole('link', { name: `Trace ${traces[1]!.trace_id}` }).click();
    await page.getByRole('heading', { name: 'Trace: read' }).waitFor();

    await page.goBack();
    await page.getByRole('link', { name: 'Docs reads need a look' }).click();
    await page.getByRole('button', { name: 'Enforce' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Enforce' }).click();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required version 2, active');
    expect((await evaluateAs(t.service, t.account.apiKey, docsRead)).decision).toBe('approval_required');

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByText('Shadow mode').click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required shadow version 3, active');
    await expectAccessible(page);
    await context.close();
  });

  it('lets a viewer read and test rules at phone width, but not change them', async () => {
    const email = `viewer.${Date.now()}@example.test`;
    await callApi(t.service, t.account, 'POST', '/api/v1/users', { name: 'Vera Viewer', email, password: PASSWORD, role: 'viewer' });
    const { page, context } = await newPage(t.browser, t.service.baseUrl, 'phone');
    await signIn(page, email, PASSWORD, '/policies');
    await page.getByRole('link', { name: 'Deploys need a human' }).waitFor();
    expect(await page.getByRole('button', { name: 'New rule' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Test', exact: true }).count()).toBe(1);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Deploys need a human' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    expect(await page.getByRole('button', { name: /Edit|Deactivate/ }).count()).toBe(0);
    await context.close();
  });
});
