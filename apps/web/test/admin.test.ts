import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import { callApi, expectAccessible, newPage, PASSWORD, screenshot, signIn, browserSuite, evaluateAs } from './browser.js';

describe('the admin pages and what each role sees', () => {
  const t = browserSuite('Admin Co');

  const me = (key: string) =>
    fetch(`${t.service.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
  const secretOf = (page: Page) => page.locator('code.secret').textContent();
  /** The main navigation's links, without the pending count beside Approvals. */
  const navLinks = async (page: Page) =>
    (await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).map((text) =>
      text.replace(/\d+ pending$/, '').trim(),
    );

  async function userWithRole(role: 'admin' | 'reviewer' | 'viewer') {
    const email = `${role}.${Date.now()}.${Math.random().toString(36).slice(2)}@example.test`;
    await callApi(t.service, t.account, 'POST', '/api/v1/users', { name: `${role} person`, email, password: PASSWORD, role });
    return email;
  }

  it('creates a key from a preset, shows its secret once, rotates it and deletes it', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/api-keys');
    await page.getByLabel('Key name').fill('approvals bot');
    await page.getByRole('button', { name: 'Scopes' }).click();
    await page.getByRole('option', { name: 'Approval client' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const first = (await (async () => {
      await page.locator('code.secret').waitFor();
      return secretOf(page);
    })())!;
    expect(first).toMatch(/^ai_[0-9a-f]{64}$/);
    expect(await me(first)).toBe(200);
    const row = page.getByRole('row', { name: /approvals bot/ });
    expect(await row.locator('td').nth(2).textContent()).toBe('approvals:read, approvals:write');
    await expectAccessible(page);
    await screenshot(page, 'api-keys');

    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.locator('code.secret').count()).toBe(0);
    await page.reload();
    await row.waitFor();
    expect(await page.locator('code.secret').count()).toBe(0);

    await row.getByRole('button', { name: 'Rotate approvals bot' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    await expect.poll(() => secretOf(page)).not.toBe(first);
    const second = (await secretOf(page))!;
    expect([await me(first), await me(second)]).toEqual([401, 200]);

    await row.getByRole('button', { name: 'Delete approvals bot' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await me(second)).toBe(401);
    await context.close();
  });

  it('adds a webhook endpoint, refuses a private address on the field, tests it and lists its deliveries', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/webhooks');
    await page.getByLabel('URL').fill('https://10.0.0.1/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('URL').fill('https://93.184.215.14/hook');
    await page.getByText('audit.event', { exact: true }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await (await page.locator('code.secret')).textContent()).toMatch(/^[0-9a-f]{64}$/);
    const link = page.getByRole('link', { name: 'https://93.184.215.14/hook' });
    expect(
      await page
        .getByRole('row', { name: /93\.184\.215\.14/ })
        .locator('td')
        .nth(1)
        .textContent(),
    ).toBe('approval.requested, audit.event');
    await expectAccessible(page);
    await screenshot(page, 'webhooks');

    // An approval, so there is a delivery to list (the address is never reached from here).
    const agent = await callApi<{ data: { id: string } }>(t.service, t.account, 'POST', '/api/v1/agents', agentBody());
    await callApi(t.service, t.account, 'POST', '/api/v1/policies', policyBody(agent.data.id, { policy_effect: 'approval_required' }));
    await evaluateAs(t.service, t.account.apiKey, action(agent.data.id));

    await link.click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => page.locator('output.test-result').textContent()).toMatch(/^Delivered: no/);
    await expect.poll(() => page.locator('tbody td:first-child').allTextContents(), { timeout: 15_000 }).toContain('approval.requested');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    expect(await link.count()).toBe(0);
    await context.close();
  });

  it('adds a reviewer who signs in without the admin pages, changes their role, and removes them', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/users');
    await page.getByLabel('Name', { exact: true }).fill('Rex Reviewer');
    await page.getByLabel('E-mail').fill('rex@example.test');
    await page.getByLabel('Initial password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Add user' }).click();
    const row = page.getByRole('row', { name: /Rex Reviewer/ });
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toBe('rex@example.test');
    await expectAccessible(page);
    await screenshot(page, 'users');

    const rex = await newPage(t.browser, t.service.baseUrl);
    await signIn(rex.page, 'rex@example.test');
    expect(await navLinks(rex.page)).toEqual(['Overview', 'Approvals', 'Delegations', 'Traces', 'Agents', 'Policies']);
    await rex.context.close();

    await row.getByRole('button', { name: 'Role of Rex Reviewer' }).click();
    await page.getByRole('option', { name: 'viewer', exact: true }).click();
    await expect
      .poll(
        async () =>
          (await callApi<{ data: { email: string; role: string }[] }>(t.service, t.account, 'GET', '/api/v1/users')).data.find(
            (u) => u.email === 'rex@example.test',
          )?.role,
      )
      .toBe('viewer');

    await row.getByRole('button', { name: 'Remove Rex Reviewer' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    const login = await fetch(`${t.service.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'rex@example.test', password: PASSWORD }),
    });
    expect(login.status).toBe(401);
    await context.close();
  });

  it('shows a settings form only once its stored values arrive, so nothing typed before is overwritten by them', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/v1/settings/grants', async (route) => {
      await arrived;
      await route.continue();
    });
    await signIn(page, t.account.email, PASSWORD, '/settings');
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Execution grants' }) });
    await card.getByText('Loading…').waitFor();
    expect(await card.getByRole('checkbox').count()).toBe(0);
    release();
    await card.getByRole('checkbox', { name: 'Sign a grant for every allowed action too' }).waitFor();
    expect(await card.getByText('Loading…').count()).toBe(0);
    expect(await card.getByRole('checkbox').isChecked()).toBe(false);
    await context.close();
  });

  it('saves reviewers’ e-mail and Slack settings, never echoing a secret, and shows the plan', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, '/settings');
    await page.getByText('E-mail reviewers when an approval is requested').click();
    await page.getByRole('button', { name: 'Save e-mail settings' }).click();
    await expect.poll(() => page.getByLabel('Reviewer addresses').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Reviewer addresses').fill('ada@example.test\nbob@example.test');
    await page.getByLabel('Escalation addresses').fill('lead@example.test');
    await page.getByRole('button', { name: 'Save e-mail settings' }).click();
    await page.getByText('Saved.').first().waitFor();
    expect(await page.getByRole('list', { name: 'Addresses awaiting confirmation' }).getByRole('listitem').allTextContents()).toEqual([
      'ada@example.test awaiting confirmation',
      'bob@example.test awaiting confirmation',
      'lead@example.test awaiting confirmation',
    ]);

    await page.getByLabel('Incoming webhook URL').fill('https://93.184.215.14/slack');
    await page.getByRole('button', { name: 'Save Slack settings' }).click();
    await expect.poll(() => page.locator('.card', { hasText: 'Slack' }).getByText('Set. Leave empty to keep it.').count()).toBe(1);
    expect(await page.getByLabel('Incoming webhook URL').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Send a test card' }).click();
    await expect.poll(() => page.locator('output.chat-test').textContent()).toMatch(/^Delivered: no/);
    expect(await page.locator('dd.plan').textContent()).toBe('free');

    await page.getByText('Sign a grant for every allowed action too').click();
    await page.getByRole('button', { name: 'Save grant settings' }).click();
    await expect
      .poll(async () => (await callApi<{ data: unknown }>(t.service, t.account, 'GET', '/api/v1/settings/grants')).data)
      .toEqual({ issue_on_allow: true });
    await page.getByRole('button', { name: 'Rotate signing key' }).click();
    const kid = await (async () => {
      await page.locator('code.grant-kid').waitFor();
      return page.locator('code.grant-kid').textContent();
    })();
    const jwks = (await fetch(`${t.service.baseUrl}/.well-known/jwks.json?tenant_id=${t.account.tenantId}`).then((r) => r.json())) as {
      keys: { kid: string }[];
    };
    // Newest first: the key just made current.
    expect(jwks.keys[0]?.kid).toBe(kid);

    await page.reload();
    await expect.poll(() => page.getByRole('checkbox', { name: 'Sign a grant for every allowed action too' }).isChecked()).toBe(true);
    await expect.poll(() => page.getByLabel('Reviewer addresses').inputValue()).toBe('ada@example.test\nbob@example.test');
    expect(await page.getByLabel('Escalation addresses').inputValue()).toBe('lead@example.test');
    await expectAccessible(page);
    await screenshot(page, 'settings');
    await context.close();
  });

  it('shows each role its own navigation at phone width, and explains a 403 in terms of the role', async () => {
    const expected = {
      admin: ['Overview', 'Approvals', 'Delegations', 'Traces', 'Agents', 'Policies', 'API keys', 'Webhooks', 'Users', 'Settings'],
      reviewer: ['Overview', 'Approvals', 'Delegations', 'Traces', 'Agents', 'Policies'],
      viewer: ['Overview', 'Approvals', 'Traces', 'Agents', 'Policies'],
    } as const;
    for (const role of ['admin', 'reviewer', 'viewer'] as const) {
      const { page, context } = await newPage(t.browser, t.service.baseUrl, 'phone');
      await signIn(page, await userWithRole(role));
      expect(await navLinks(page)).toEqual([...expected[role]]);
      await expectAccessible(page);
      if (role === 'viewer') {
        await page.goto('/settings');
        await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Your role (viewer) cannot do this.');
      }
      await context.close();
    }
  });
});
