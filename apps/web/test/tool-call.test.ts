import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { action, agentBody, policyBody } from '../../api/test/fixtures.js';
import { browserSuite, callApi, evaluateAs, expectAccessible, newPage, PASSWORD, recordOutcomeAs, screenshot, signIn } from './browser.js';

/** Traces and approvals of calls made through the MCP gateway, which evaluates each with the tool and its arguments as context. */
describe('the tool call behind a trace or an approval', () => {
  const t = browserSuite('Gateway Co');
  let agentId: string;

  beforeAll(async () => {
    const integrations = [
      { name: 'filesystem', resource_scope: '/srv/data/*', data_classification: 'internal', allowed_operations: ['read', 'write'] },
    ];
    const agent = await callApi<{ data: { id: string } }>(
      t.service,
      t.account,
      'POST',
      '/api/v1/agents',
      agentBody({ name: 'fs-gateway', authorized_integrations: integrations }),
    );
    agentId = agent.data.id;
    const rules = [
      { operation: 'read', policy_effect: 'allow', policy_name: 'Reads are fine' },
      {
        operation: 'write',
        policy_effect: 'approval_required',
        policy_name: 'Writes need a human',
        rationale: 'File writes need a human.',
      },
    ];
    for (const rule of rules) {
      await callApi(
        t.service,
        t.account,
        'POST',
        '/api/v1/policies',
        policyBody(agentId, { target_integration: 'filesystem', resource_scope: '/srv/data/*', ...rule }),
      );
    }
  });

  /** What the gateway asks before it forwards a call: the mapped operation on the file, with the call as context. */
  const evaluateToolCall = (operation: string, path: string, context: Record<string, unknown>) =>
    evaluateAs(t.service, t.account.apiKey, {
      ...action(agentId, { operation, target_integration: 'filesystem', resource_scope: path }),
      context,
    });

  const panelOf = (page: Page) => page.getByRole('region', { name: 'Tool call' });
  const facts = async (panel: Locator) => {
    const [terms, details] = await Promise.all([panel.locator('dt').allTextContents(), panel.locator('dd').all()]);
    return Object.fromEntries(await Promise.all(details.map(async (detail, at) => [terms[at], await detail.textContent()])));
  };

  it('shows on the trace page the server, the tool, its arguments and the digest of its result', async () => {
    const path = '/srv/data/report.txt';
    const evaluation = await evaluateToolCall('read', path, { tool: 'read_text_file', arguments: { path } });
    expect(evaluation.decision).toBe('allow');
    const digest = 'ab'.repeat(32);
    await recordOutcomeAs(t.service, t.account.apiKey, evaluation.trace_id, {
      status: 'success',
      metadata: { tool: 'read_text_file', content_types: ['text'], result_sha256: digest },
    });

    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/traces/${evaluation.trace_id}`);
    const panel = panelOf(page);
    await panel.waitFor();
    const shown = await facts(panel);
    expect(shown).toMatchObject({ Integration: 'filesystem', Tool: 'read_text_file' });
    expect(JSON.parse((await panel.locator('pre.json').textContent()) ?? '')).toEqual({ path });
    expect(shown['Result SHA-256']).toContain(digest);
    expect(await panel.locator('code').allTextContents()).toEqual(['read_text_file', digest]);
    await panel.getByRole('button', { name: 'Copy digest' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'trace-tool-call');
    await context.close();
  });

  it('is absent from a trace whose context is not a tool call', async () => {
    const evaluation = await evaluateToolCall('read', '/srv/data/report.txt', { ticket: 'OPS-7' });
    const { page, context } = await newPage(t.browser, t.service.baseUrl);
    await signIn(page, t.account.email, PASSWORD, `/traces/${evaluation.trace_id}`);
    await page.getByRole('heading', { name: 'Trace: read' }).waitFor();
    await page.getByRole('list', { name: 'Events' }).waitFor();
    expect(await panelOf(page).count()).toBe(0);
    await context.close();
  });

  it('shows a reviewer, on a phone, which tool and which arguments a pending approval is for', async () => {
    const content = 'Quarterly figures, revised after the audit. '.repeat(6).trim();
    const path = '/srv/data/notes.txt';
    const evaluation = await evaluateToolCall('write', path, { tool: 'write_file', arguments: { path, content } });
    expect(evaluation.decision).toBe('approval_required');

    const { page, context } = await newPage(t.browser, t.service.baseUrl, 'phone');
    await signIn(page, t.account.email, PASSWORD, `/approvals/${evaluation.approval_request_id}`);
    await page.getByRole('heading', { name: 'Approval: write' }).waitFor();
    const panel = panelOf(page);
    await panel.waitFor();
    expect(await facts(panel)).toMatchObject({ Integration: 'filesystem', Tool: 'write_file' });
    expect(JSON.parse((await panel.locator('pre.json').textContent()) ?? '')).toEqual({ path, content });
    // Nothing has run yet, so there is no result to show.
    expect(await panel.getByText('Result SHA-256').count()).toBe(0);
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    // A long argument wraps: the reviewer reads all of it, and the page does not scroll sideways.
    expect(await page.locator('html').evaluate((root) => root.scrollWidth <= root.clientWidth)).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'approval-tool-call');
    await context.close();
  });
});
