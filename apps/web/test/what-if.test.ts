import { beforeAll, describe, expect, it } from 'vitest';
import { agentBody, policyBody } from '../../api/test/fixtures.js';
import { browserSuite, callApi, evaluateAs, expectAccessible, newPage, PASSWORD, screenshot, signIn } from './browser.js';

type Created = { data: { id: string } };

describe('the what-if of a rule', () => {
  const t = browserSuite('What-if Co');
  let agentId: string;
  let ruleId: string;
  let writes: { trace_id: string; decision: string }[];

  beforeAll(async () => {
    agentId = (await callApi<Created>(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'release-bot' }))).data.id;
    const otherAgentId = (await callApi<Created>(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'docs-bot' }))).data.id;
    ruleId = (
      await callApi<Created>(t.service, t.account, 'POST', '/api/v1/policies', policyBody(agentId, { policy_name: 'Repository writes' }))
    ).data.id;
    const action = { target_integration: 'github', resource_scope: 'repo/web', data_classification: 'internal' };
    writes = [];
    for (let n = 0; n < 3; n++)
      writes.push(await evaluateAs(t.service, t.account.apiKey, { ...action, agent_id: agentId, operation: 'write' }));
    expect(writes.map((trace) => trace.decision)).toEqual(['allow', 'allow', 'allow']);
    // Decided by no rule, and another agent's: neither is changed by the draft, and the other agent's is not tried.
    expect((await evaluateAs(t.service, t.account.apiKey, { ...action, agent_id: agentId, operation: 'read' })).decision).toBe('deny');
    await evaluateAs(t.service, t.account.apiKey, { ...action, agent_id: otherAgentId, operation: 'write' });
  });

  it('shows what a draft would change in the last 7 days, links its traces, and saves it from there', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/policies/${ruleId}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: /Effect/ }).click();
    await page.getByRole('option', { name: 'deny' }).click();
    await page.getByRole('button', { name: 'Preview on the last 7 days' }).click();

    const whatIf = page.getByRole('region', { name: 'What if: Repository writes' });
    await expect
      .poll(() => whatIf.getByRole('status').textContent())
      .toBe('4 evaluations of release-bot recorded in the last 7 days, decided again with this draft: 3 would be decided otherwise.');
    const rowsOf = (name: string) =>
      whatIf
        .getByRole('table', { name })
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
    expect(await rowsOf('Decisions that would change')).toEqual([
      ['allow → deny', '3', writes.map((trace) => trace.trace_id.slice(0, 8)).join('')],
    ]);
    expect(await rowsOf('Changed decisions by the rule deciding them under the draft')).toEqual([['Repository writes (this draft)', '3']]);
    const sample = whatIf.getByRole('link', { name: `Trace ${writes[0]!.trace_id}` });
    const sampleAddress = await sample.getAttribute('href');
    expect(sampleAddress).toBe(`/traces/${writes[0]!.trace_id}`);
    await expectAccessible(page);
    await screenshot(page, 'what-if');

    // Nothing was saved by the preview; back to editing keeps the draft.
    await whatIf.getByRole('button', { name: 'Back to editing' }).click();
    expect(await page.getByRole('button', { name: /Effect/ }).textContent()).toContain('deny');
    expect(
      (await callApi<{ data: { policy_version: number } }>(t.service, t.account, 'GET', `/api/v1/policies/${ruleId}`)).data.policy_version,
    ).toBe(1);
    await page.getByRole('button', { name: 'Preview on the last 7 days' }).click();
    await whatIf.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('deny version 2, active');
    const saved = await callApi<{ data: Record<string, unknown> }>(t.service, t.account, 'GET', `/api/v1/policies/${ruleId}`);
    expect(saved.data).toMatchObject({ policy_effect: 'deny', policy_version: 2, policy_name: 'Repository writes', is_active: true });

    await page.goto(sampleAddress!);
    await page.getByRole('heading', { name: 'Trace: write' }).waitFor();
    await context.close();
  });

  it("shows the service's complaint about a draft's condition on its field", async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/policies/${ruleId}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Conditions (JSON Logic)').fill('{"foo": [1]}');
    await page.getByRole('button', { name: 'Preview on the last 7 days' }).click();
    await expect.poll(() => page.getByLabel('Conditions (JSON Logic)').getAttribute('aria-invalid')).toBe('true');
    expect(
      await page
        .locator('.field', { has: page.getByLabel('Conditions (JSON Logic)') })
        .locator('[slot="errorMessage"]')
        .textContent(),
    ).toBe('conditions: unknown operator "foo"');
    expect(await page.getByRole('region', { name: /What if/ }).count()).toBe(0);
    await expectAccessible(page);
    await context.close();
  });

  it('shows what a new rule would change, and creates it from there', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/policies?agent_id=${agentId}`);
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Rule name').fill('Writes need a look');
    await page.getByLabel('Integration', { exact: true }).fill('github');
    await page.getByLabel('Operation', { exact: true }).fill('write');
    await page.getByLabel('Resource scope').fill('repo/*');
    await page.getByLabel('Rationale').fill('short');
    await page.getByRole('button', { name: 'Preview on the last 7 days' }).click();
    // 10 characters at least: the service says so on the field, and nothing of the other shapes of a change.
    await expect.poll(() => page.getByLabel('Rationale').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);
    await page.getByLabel('Rationale').fill('Someone should see what the agent writes.');
    await page.getByRole('button', { name: 'Preview on the last 7 days' }).click();

    const whatIf = page.getByRole('region', { name: 'What if: Writes need a look' });
    // The recorded decisions stay those of the time: the allows, not the deny saved since.
    await expect
      .poll(() => whatIf.getByRole('status').textContent())
      .toBe('4 evaluations of release-bot recorded in the last 7 days, decided again with this draft: 3 would be decided otherwise.');
    expect(await whatIf.getByRole('table', { name: 'Decisions that would change' }).locator('tbody td').first().textContent()).toBe(
      'allow → approval required',
    );
    await whatIf.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('heading', { name: 'Writes need a look' }).waitFor();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required version 1, active');
    await context.close();
  });

  it('shows what deactivating a rule would change, and deactivates it from there', async () => {
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/policies?agent_id=${agentId}`);
    await page.getByRole('link', { name: 'Writes need a look' }).click();
    await page.getByRole('button', { name: 'What if I deactivate it?' }).click();

    // Without the new rule, the edited one decides the writes again, as it stands now: deny.
    const whatIf = page.getByRole('region', { name: 'What if Writes need a look is deactivated' });
    await expect
      .poll(() => whatIf.getByRole('status').textContent())
      .toBe('4 evaluations of release-bot recorded in the last 7 days, decided again with this draft: 3 would be decided otherwise.');
    expect(
      await whatIf
        .getByRole('table', { name: 'Changed decisions by the rule deciding them under the draft' })
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent))),
    ).toEqual([['Repository writes', '3']]);
    expect(await whatIf.getByRole('link', { name: 'Repository writes' }).getAttribute('href')).toBe(`/policies/${ruleId}`);
    await expectAccessible(page);

    await whatIf.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => page.locator('.page-header p').textContent()).toBe('approval required version 1, inactive');
    expect(await page.getByRole('region', { name: /What if/ }).count()).toBe(0);
    await context.close();
  });
});

describe('the what-if over more traffic than a simulation may decide', () => {
  const t = browserSuite('Busy Co', { SIMULATE_MAX_EVALUATIONS: '1' });

  it("says so, in the service's words", async () => {
    const agentId = (await callApi<Created>(t.service, t.account, 'POST', '/api/v1/agents', agentBody({ name: 'busy-bot' }))).data.id;
    const ruleId = (await callApi<Created>(t.service, t.account, 'POST', '/api/v1/policies', policyBody(agentId))).data.id;
    const write = {
      agent_id: agentId,
      operation: 'write',
      target_integration: 'github',
      resource_scope: 'repo/web',
      data_classification: 'internal',
    };
    await evaluateAs(t.service, t.account.apiKey, write);
    await evaluateAs(t.service, t.account.apiKey, write);
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/policies/${ruleId}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Preview on the last 7 days' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/^The window holds 2 recorded evaluations; a simulation re-decides at most 1\. Narrow the window\. Request /);
    await context.close();
  });
});
