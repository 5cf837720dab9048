import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../api/test/scenarios.js';
import { useTestApp } from '../../api/test/harness.js';
import { client as apiClient } from '../../api/test/client.js';
import {
  type Connected,
  filesystemConfig,
  governedTenant,
  type GovernedTenant,
  listening,
  newestTrace,
  readsAllowedWritesReviewed,
  stdioGateway,
  textOf,
  trace,
  traceCount,
  traceIdIn,
} from './support.js';

/**
 * A desktop client's view: an MCP client launches the gateway over stdio, in front of the
 * reference filesystem server on a temporary directory. Reads are allowed, writes wait for a
 * reviewer, and moving a file away (mapped as a delete of its source) is allowed only in
 * `scratch/`.
 */
const t = useTestApp();
const dir = mkdtempSync(join(tmpdir(), 'agov-mcp-fs-'));
let governed: GovernedTenant;
let gateway: Connected;

beforeAll(async () => {
  const url = await listening(t);
  governed = await governedTenant(t);
  await readsAllowedWritesReviewed(governed, dir);
  await governed.rule({ operation: 'delete', resource_scope: `${dir}/scratch/*`, policy_effect: 'allow', priority: 20 });
  await governed.rule({
    operation: 'delete',
    resource_scope: '*',
    policy_effect: 'deny',
    priority: 10,
    rationale: 'Files leave only the scratch folder.',
  });
  mkdirSync(join(dir, 'scratch'));
  writeFileSync(join(dir, 'notes.txt'), 'first line\n');
  writeFileSync(join(dir, 'scratch', 'draft.txt'), 'draft\n');
  const config = filesystemConfig(url, governed, dir);
  gateway = await stdioGateway(config, { AGOV_API_KEY: governed.tenant.runtimeKey.apiKey, PUBLIC_URL: 'https://governance.example.test' });
});

afterAll(() => gateway?.close());

describe('the gateway in front of the filesystem server, over stdio', () => {
  it('lists the server’s tools under its prefix', async () => {
    const { tools } = await gateway.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['fs__read_text_file', 'fs__write_file', 'fs__move_file', 'fs__list_directory']));
    expect(names.every((name) => name.startsWith('fs__'))).toBe(true);
  });

  it('forwards an allowed read unchanged and closes its trace as executed', async () => {
    const result = await gateway.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'notes.txt') } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('first line\n');

    const recorded = await newestTrace(t, governed);
    expect(recorded).toMatchObject({ requested_operation: 'read', resource_scope: join(dir, 'notes.txt'), final_outcome: 'executed' });
    const executed = recorded.events.find((event) => event.event_type === 'operation_executed');
    expect(executed?.metadata).toMatchObject({
      tool: 'read_text_file',
      content_types: ['text'],
      result_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // What the tool returned stays out of the trace: only its digest is kept.
    expect(JSON.stringify(recorded.events)).not.toContain('first line');
  });

  it('holds a write until a reviewer approves it through the API, then makes it', async () => {
    const target = join(dir, 'approved.txt');
    const progress: string[] = [];
    const call = gateway.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'approved content' } }, undefined, {
      onprogress: (update) => progress.push(update.message ?? ''),
    });
    const approvalId = await pendingApproval(progress);
    expect(existsSync(target)).toBe(false);
    expect((await decide(t.app, governed.tenant.admin, approvalId, 'approve', { approver_name: 'Rita Reviewer' })).statusCode).toBe(200);

    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('approved content');
    const recorded = await newestTrace(t, governed);
    expect(recorded.final_outcome).toBe('completed_with_approval');
    expect(recorded.events.map((event) => event.event_type)).toEqual(
      expect.arrayContaining(['approval_requested', 'approval_granted', 'operation_executed']),
    );
  });

  it('answers a write the reviewer denies with an error result naming the trace, and writes nothing', async () => {
    const target = join(dir, 'denied.txt');
    const progress: string[] = [];
    const call = gateway.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'never' } }, undefined, {
      onprogress: (update) => progress.push(update.message ?? ''),
    });
    const approvalId = await pendingApproval(progress);
    await decide(t.app, governed.tenant.admin, approvalId, 'deny', { approver_name: 'Rita Reviewer', decision_note: 'Not this file' });

    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('rejected');
    expect(textOf(result)).toContain('Not this file');
    expect(textOf(result)).toContain(`https://governance.example.test/approvals/${approvalId}`);
    expect(existsSync(target)).toBe(false);
    expect((await trace(t, governed, traceIdIn(result))).final_outcome).toBe('denied');
  });

  it('denies moving a file out of anywhere but scratch/, and allows it there', async () => {
    const denied = await gateway.client.callTool({
      name: 'fs__move_file',
      arguments: { source: join(dir, 'notes.txt'), destination: join(dir, 'gone.txt') },
    });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('Denied by policy: Files leave only the scratch folder.');
    expect(existsSync(join(dir, 'notes.txt'))).toBe(true);
    const deniedTrace = await trace(t, governed, traceIdIn(denied));
    expect(deniedTrace).toMatchObject({ requested_operation: 'delete', final_outcome: 'denied' });

    const allowed = await gateway.client.callTool({
      name: 'fs__move_file',
      arguments: { source: join(dir, 'scratch', 'draft.txt'), destination: join(dir, 'scratch', 'kept.txt') },
    });
    expect(allowed.isError).toBeFalsy();
    expect(existsSync(join(dir, 'scratch', 'kept.txt'))).toBe(true);
    expect((await newestTrace(t, governed)).final_outcome).toBe('executed');
  });

  it('records a tool’s own error as a failed outcome and passes the result back unchanged', async () => {
    const result = await gateway.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'missing.txt') } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/ENOENT|no such file/i);
    const recorded = await newestTrace(t, governed);
    expect(recorded.final_outcome).toBe('blocked');
    expect(recorded.events.map((event) => event.event_type)).toContain('operation_failed');
  });

  it('refuses a call whose resource_scope cannot be written, without evaluating or forwarding it', async () => {
    const before = await traceCount(t, governed);
    const result = await gateway.client.callTool({ name: 'fs__write_file', arguments: { content: 'no path' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("no argument 'path'");
    expect(await traceCount(t, governed)).toBe(before);
  });

  it('evaluates an unmapped tool with the server’s defaults, never letting it through unevaluated', async () => {
    const before = await traceCount(t, governed);
    const result = await gateway.client.callTool({ name: 'fs__list_allowed_directories', arguments: {} });
    // No rule allows `execute`: the service's default decides, and the call is refused with a trace.
    expect(await traceCount(t, governed)).toBe(before + 1);
    const recorded = await newestTrace(t, governed);
    expect(recorded).toMatchObject({ requested_operation: 'execute', resource_scope: 'list_allowed_directories' });
    expect(result.isError).toBe(recorded.final_outcome !== 'executed');
  });
});

/** The approval a waiting call named in its first progress message. */
async function pendingApproval(progress: string[]): Promise<string> {
  await expect.poll(() => progress.length).toBeGreaterThan(0);
  expect(progress[0]).toMatch(/Waiting for a reviewer's decision/);
  const id = /approvals\/([0-9a-f-]{36})/.exec(progress[0]!)?.[1];
  expect(id).toBeDefined();
  const status = await apiClient(t).get(governed.tenant.admin, `/api/v1/approvals/${id}/status`);
  expect(status.json().status).toBe('pending');
  return id!;
}
