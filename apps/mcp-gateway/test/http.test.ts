import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyWithScopes, signupTenant, useTestApp } from '../../api/test/harness.js';
import { decide } from '../../api/test/scenarios.js';
import {
  filesystemConfig,
  GATEWAY,
  governedTenant,
  type GovernedTenant,
  httpClient,
  listening,
  readsAllowedWritesReviewed,
  textOf,
} from './support.js';

/** A remote agent's view: the gateway serving Streamable HTTP, each client with an API key of the tenant. */
const t = useTestApp();
const dir = mkdtempSync(join(tmpdir(), 'agov-mcp-http-'));
let governed: GovernedTenant;
let gateway: ChildProcess;
let mcpUrl: string;
let metricsUrl: string;
const clients: Client[] = [];

beforeAll(async () => {
  const url = await listening(t);
  governed = await governedTenant(t);
  await readsAllowedWritesReviewed(governed, dir);
  writeFileSync(join(dir, 'shared.txt'), 'shared\n');
  const config = filesystemConfig(url, governed, dir);
  gateway = spawn(process.execPath, [GATEWAY, '--config', config, '--http', '0'], {
    env: { PATH: process.env.PATH, AGOV_API_KEY: governed.tenant.runtimeKey.apiKey, METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = await new Promise<{ msg: string; metricsPort: number }>((resolve, reject) => {
    let output = '';
    gateway.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((text) => text.includes('MCP gateway listening at'));
      if (line) resolve(JSON.parse(line));
    });
    gateway.once('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${output}`)));
  });
  mcpUrl = /listening at (\S+)/.exec(started.msg)![1]!;
  metricsUrl = `http://127.0.0.1:${started.metricsPort}/metrics`;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  gateway?.kill('SIGTERM');
});

const connect = async (apiKey: string) => {
  const client = await httpClient(mcpUrl, apiKey);
  clients.push(client);
  return client;
};

const initialize = (authorization?: string) =>
  fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization && { authorization }) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

describe('the gateway over Streamable HTTP', () => {
  it('answers 401 with a Bearer challenge without a key, with an unknown key, and with another tenant’s key', async () => {
    const other = await signupTenant(t.app, 'Someone else');
    for (const authorization of [undefined, 'Bearer ai_not_a_key', `Bearer ${other.runtimeKey.apiKey}`]) {
      const response = await initialize(authorization);
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('API key');
    }
  });

  it('serves two clients at once, each with a key of the tenant: one waits for a reviewer while the other’s reads go through', async () => {
    const reviewerKey = await keyWithScopes(t.app, governed.tenant, ['evaluate']);
    const [writer, reader] = await Promise.all([connect(governed.tenant.runtimeKey.apiKey), connect(reviewerKey.apiKey)]);
    const progress: string[] = [];
    const write = writer.callTool(
      { name: 'fs__write_file', arguments: { path: join(dir, 'remote.txt'), content: 'from afar' } },
      undefined,
      {
        onprogress: (update) => progress.push(update.message ?? ''),
      },
    );
    await expect.poll(() => progress.length).toBeGreaterThan(0);

    const reads = await Promise.all(
      [1, 2, 3].map(() => reader.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'shared.txt') } })),
    );
    expect(reads.map(textOf)).toEqual(['shared\n', 'shared\n', 'shared\n']);

    const approvalId = /approvals\/([0-9a-f-]{36})/.exec(progress[0]!)![1]!;
    expect((await decide(t.app, governed.tenant.admin, approvalId, 'approve', { approver_name: 'Rita Reviewer' })).statusCode).toBe(200);
    expect((await write).isError).toBeFalsy();
  });

  it('keeps a session to the key that opened it', async () => {
    const opened = await initialize(`Bearer ${governed.tenant.runtimeKey.apiKey}`);
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    const otherKey = await keyWithScopes(t.app, governed.tenant, ['evaluate']);
    const list = (apiKey: string) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${apiKey}`,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    expect((await list(otherKey.apiKey)).status).toBe(404);
    expect((await list(governed.tenant.runtimeKey.apiKey)).status).toBe(200);
  });

  it('counts calls by decision and the time it adds, on /metrics', async () => {
    const reader = await connect(governed.tenant.runtimeKey.apiKey);
    await reader.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'shared.txt') } });
    const text = await (await fetch(metricsUrl)).text();
    expect(Number(/agov_mcp_tool_calls_total\{decision="allow"\} (\d+)/.exec(text)?.[1])).toBeGreaterThanOrEqual(4);
    expect(Number(/agov_mcp_tool_calls_total\{decision="approval_required"\} (\d+)/.exec(text)?.[1])).toBe(1);
    expect(Number(/agov_mcp_added_latency_seconds_count (\d+)/.exec(text)?.[1])).toBeGreaterThanOrEqual(4);
  });

  it('answers 403 to a request naming another host, as a DNS-rebinding page would make a browser send', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(mcpUrl);
      request(
        {
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: { host: 'evil.example.test', authorization: `Bearer ${governed.tenant.runtimeKey.apiKey}` },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      )
        .on('error', reject)
        .end('{}');
    });
    expect(status).toBe(403);
  });

  it('answers 404 off /mcp', async () => {
    expect(
      (await fetch(new URL('/other', mcpUrl), { headers: { authorization: `Bearer ${governed.tenant.runtimeKey.apiKey}` } })).status,
    ).toBe(404);
  });
});
