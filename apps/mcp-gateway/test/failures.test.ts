import { existsSync, mkdtempSync } from 'node:fs';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expireDueApprovals } from '@agov/domain';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, useTestApp } from '../../api/test/harness.js';
import { decide } from '../../api/test/scenarios.js';
import {
  type Connected,
  configFile,
  cuttableRelay,
  FIXTURES,
  type GovernedTenant,
  governedTenant,
  listening,
  newestTrace,
  stdioGateway,
  textOf,
  trace,
  traceCount,
  traceIdIn,
} from './support.js';

/** What goes wrong around a governed call: the tool, the governance API, the reviewer, the client. */
const clock = new TestClock();
// A database of its own: expiring approvals acts on every tenant, so another file expiring
// its own would take this file's approval, and the other way round.
const t = useTestApp({ clock, ownDatabase: true });
const markers = mkdtempSync(join(tmpdir(), 'agov-mcp-markers-'));
let apiUrl: string;
let governed: GovernedTenant;
const open: Connected[] = [];

beforeAll(async () => {
  apiUrl = await listening(t);
  governed = await governedTenant(t, 'misbehaving');
  await governed.rule({ operation: 'execute', policy_effect: 'allow', priority: 10 });
  await governed.rule({ operation: 'write', policy_effect: 'approval_required', priority: 10 });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

/** A gateway in front of the misbehaving server; `echo` asks for approval when `writes` maps it as a write. */
async function gateway(options: { governanceUrl?: string; wait?: number; callTimeout?: number; tools?: string } = {}) {
  const config = configFile(`
governance: { url: ${options.governanceUrl ?? apiUrl}, api_key: \${AGOV_API_KEY}, agent_id: ${governed.agentId} }
approval_wait_seconds: ${options.wait ?? 30}
servers:
  bad:
    command: ${process.execPath}
    args: [${join(FIXTURES, 'misbehaving-server.mjs')}]
    env: { MARKERS: ${markers} }
    target_integration: misbehaving
    call_timeout_seconds: ${options.callTimeout ?? 60}
    defaults: { operation: execute }
    tools: ${options.tools ?? '{}'}
`);
  const connected = await stdioGateway(config, { AGOV_API_KEY: governed.tenant.runtimeKey.apiKey });
  open.push(connected);
  return connected;
}

describe('a downstream server that fails', () => {
  it('crashing mid-call: the call fails with a readable error, the trace records it, and the next call reconnects', async () => {
    const { client } = await gateway();
    const crashed = await client.callTool({ name: 'bad__crash', arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(/^The tool failed: .*Connection closed/);
    const recorded = await trace(t, governed, traceIdIn(crashed));
    expect(recorded.final_outcome).toBe('blocked');
    expect(recorded.events.map((event) => event.event_type)).toContain('operation_failed');

    const echoed = await client.callTool({ name: 'bad__echo', arguments: { message: 'after-crash' } });
    expect(textOf(echoed)).toBe('after-crash');
  });

  it('hanging: the call fails after call_timeout_seconds, recorded as failed', async () => {
    const { client } = await gateway({ callTimeout: 1 });
    const hung = await client.callTool({ name: 'bad__hang', arguments: {} });
    expect(hung.isError).toBe(true);
    expect(textOf(hung)).toMatch(/^The tool failed: no answer within 1 s/);
    expect((await trace(t, governed, traceIdIn(hung))).final_outcome).toBe('blocked');
  });
});

describe('a server whose tools change', () => {
  it('has its tools/list_changed relayed, and the new tool listed and governed', async () => {
    const { client } = await gateway();
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('bad__fresh');
    await client.callTool({ name: 'bad__add_tool', arguments: { name: 'fresh' } });
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('bad__fresh');
    expect(textOf(await client.callTool({ name: 'bad__fresh', arguments: {} }))).toBe('fresh ran');
    expect(await newestTrace(t, governed)).toMatchObject({ resource_scope: 'fresh', final_outcome: 'executed' });
  });
});

describe('the governance API out of reach', () => {
  /** A port nothing listens on. */
  const deadApi = 'http://127.0.0.1:9';

  it('fails the call closed, unforwarded, with a result saying the service is unavailable', async () => {
    const { client, stderr } = await gateway({ governanceUrl: deadApi });
    const result = await client.callTool({ name: 'bad__echo', arguments: { message: 'closed' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('unavailable');
    expect(existsSync(join(markers, 'echo-closed'))).toBe(false);
    await expect.poll(stderr).toContain('governance API unavailable: tool call refused (fail closed)');
  });

  it('forwards a tool mapped fail_open, unevaluated, and says so loudly in the log', async () => {
    const { client, stderr } = await gateway({ governanceUrl: deadApi, tools: '{ echo: { fail_open: true } }' });
    const result = await client.callTool({ name: 'bad__echo', arguments: { message: 'open' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('open');
    await expect.poll(stderr).toContain('tool call forwarded UNEVALUATED (fail_open)');
  });
});

describe('a call waiting for a reviewer', () => {
  const asWrite = '{ echo: { operation: write } }';

  it('answers expired, not denied, when the approval expires while the call waits', async () => {
    const { client } = await gateway({ tools: asWrite });
    const progress: string[] = [];
    const call = client.callTool({ name: 'bad__echo', arguments: { message: 'expiring' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    clock.advance(86_400_000 + 1_000);
    try {
      // The gateway's own wait may read the request first and expire it on that read, so
      // the sweep is what guarantees the expiry, not what counts it; the trace below does.
      await expireDueApprovals(t.runtime.deps);
    } finally {
      clock.advance(-(86_400_000 + 1_000));
    }
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Approval expired before anyone decided/);
    expect(existsSync(join(markers, 'echo-expiring'))).toBe(false);
    expect((await trace(t, governed, traceIdIn(result))).final_outcome).toBe('expired');
  });

  it('answers timed out after approval_wait_seconds, leaving the request pending', async () => {
    const { client } = await gateway({ tools: asWrite, wait: 1 });
    const result = await client.callTool({ name: 'bad__echo', arguments: { message: 'timeout' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Approval timed out: no decision within 1 s/);
    expect((await trace(t, governed, traceIdIn(result))).final_outcome).toBe('in_progress');
    expect(existsSync(join(markers, 'echo-timeout'))).toBe(false);
  });
});

describe('the governance API lost while a call waits for its approval', () => {
  it('refuses the call as unavailable, naming the approval and the trace, and never runs the tool', async () => {
    const relay = await cuttableRelay(apiUrl);
    const { client } = await gateway({ governanceUrl: relay.url, tools: '{ echo: { operation: write } }' });
    const progress: string[] = [];
    const call = client.callTool({ name: 'bad__echo', arguments: { message: 'partitioned' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    await relay.cut();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^Governance unavailable: the approval's status could not be read \(.+\), so the call was not made\. \S+\/approvals\/[0-9a-f-]{36} \(trace [0-9a-f-]{36}\)$/,
    );
    expect(existsSync(join(markers, 'echo-partitioned'))).toBe(false);
  });
});

describe('a client that cancels', () => {
  it('cancels the downstream call, which the trace records as failed', async () => {
    const { client } = await gateway();
    const controller = new AbortController();
    const call = client.callTool({ name: 'bad__wait_for_cancel', arguments: { label: 'running' } }, undefined, {
      signal: controller.signal,
    });
    await expect.poll(() => existsSync(join(markers, 'started-running'))).toBe(true);
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await expect.poll(() => existsSync(join(markers, 'cancelled-running'))).toBe(true);
    await expect.poll(async () => (await newestTrace(t, governed)).final_outcome).toBe('blocked');
  });

  it('while the call waits for a reviewer: the tool never runs', async () => {
    const { client } = await gateway({ tools: '{ wait_for_cancel: { operation: write } }' });
    const before = await traceCount(t, governed);
    const controller = new AbortController();
    const progress: string[] = [];
    const call = client.callTool({ name: 'bad__wait_for_cancel', arguments: { label: 'waiting' } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    expect(await traceCount(t, governed)).toBe(before + 1);
    // Approved after the client gave up: nothing is left waiting to act on it.
    const approvalId = /approvals\/([0-9a-f-]{36})/.exec(progress[0]!)![1]!;
    expect((await decide(t.app, governed.tenant.admin, approvalId, 'approve', { approver_name: 'Late Reviewer' })).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(existsSync(join(markers, 'started-waiting'))).toBe(false);
  });
});
