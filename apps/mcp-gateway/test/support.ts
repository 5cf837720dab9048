import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { client as apiClient } from '../../api/test/client.js';
import { createAgent, createPolicy } from '../../api/test/fixtures.js';
import { signupTenant, type Tenant, type TestApp } from '../../api/test/harness.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/** The built gateway, as a desktop client launches it (the test setup builds it). */
export const GATEWAY = join(root, 'apps/mcp-gateway/dist/main.js');
export const FILESYSTEM_SERVER = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING_SERVER = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const EXAMPLE = join(root, 'examples/mcp-gateway/gateway.yaml');
/** Small MCP servers of the tests' own that misbehave: crash, hang. */
export const FIXTURES = join(root, 'apps/mcp-gateway/test/fixtures');

/** The service on a real port, so that a gateway process can reach it. */
export async function listening(t: TestApp): Promise<string> {
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return address.replace('localhost', '127.0.0.1');
}

export interface GovernedTenant {
  readonly tenant: Tenant;
  readonly agentId: string;
  /** Creates a rule of the agent; `overrides` on a filesystem read allowed everywhere. */
  rule(overrides: Record<string, unknown>): Promise<{ id: string }>;
}

export async function governedTenant(t: TestApp, integration = 'filesystem'): Promise<GovernedTenant> {
  const tenant = await signupTenant(t.app, 'MCP gateway tests');
  const agent = await createAgent(t.app, tenant.admin, {
    name: 'desktop-agent',
    authorized_integrations: [
      {
        name: integration,
        resource_scope: '*',
        data_classification: 'confidential',
        allowed_operations: ['read', 'write', 'delete', 'execute'],
      },
    ],
  });
  return {
    tenant,
    agentId: agent.id,
    rule: (overrides) =>
      createPolicy(t.app, tenant.admin, agent.id, {
        policy_name: `${overrides.operation ?? 'read'} ${overrides.policy_effect ?? 'allow'}`,
        target_integration: integration,
        operation: 'read',
        resource_scope: '*',
        data_classification: 'internal',
        policy_effect: 'allow',
        rationale: 'Set by the gateway tests for this scenario.',
        ...overrides,
      }),
  };
}

/** Reads of `dir` allowed and writes held for a reviewer: the rules both filesystem suites start from. */
export async function readsAllowedWritesReviewed(governed: GovernedTenant, dir: string): Promise<void> {
  await governed.rule({ operation: 'read', resource_scope: `${dir}/*`, policy_effect: 'allow', priority: 10 });
  await governed.rule({
    operation: 'write',
    resource_scope: `${dir}/*`,
    data_classification: 'confidential',
    policy_effect: 'approval_required',
    priority: 10,
  });
}

/**
 * The gateway in front of the filesystem server on `dir`: reads, writes, and moving a file
 * away mapped as a delete of its source (the server has no delete tool).
 */
export const filesystemConfig = (apiUrl: string, governed: GovernedTenant, dir: string) =>
  configFile(`
governance: { url: ${apiUrl}, api_key: \${AGOV_API_KEY}, agent_id: ${governed.agentId} }
approval_wait_seconds: 20
servers:
  fs:
    command: ${process.execPath}
    args: [${FILESYSTEM_SERVER}, ${dir}]
    target_integration: filesystem
    defaults: { operation: execute, data_classification: internal }
    tools:
      read_text_file: { operation: read, resource_scope: "{path}" }
      list_directory: { operation: read, resource_scope: "{path}" }
      write_file: { operation: write, resource_scope: "{path}", data_classification: confidential }
      move_file: { operation: delete, resource_scope: "{source}" }
`);

/** Writes a gateway configuration in a directory of its own; answers its path. */
export function configFile(yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'agov-mcp-config-')), 'gateway.yaml');
  writeFileSync(path, yaml);
  return path;
}

export interface Connected {
  readonly client: Client;
  /** What the gateway wrote to standard error so far: its logs. */
  readonly stderr: () => string;
  close(): Promise<void>;
}

/** An MCP client that launches the gateway over stdio, as a desktop client does. */
export async function stdioGateway(config: string, env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY, '--config', config],
    env: { ...getDefaultEnvironment(), LOG_LEVEL: 'info', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** An MCP client of a gateway serving Streamable HTTP at `url`, with `apiKey` as its bearer. */
export async function httpClient(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }),
  );
  return client;
}

export const textOf = (result: unknown) =>
  (result as CallToolResult).content.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n');

export const TRACE_ID = /\(trace ([0-9a-f-]{36})\)/;

/** The trace a refusal names. */
export function traceIdIn(result: unknown): string {
  const match = TRACE_ID.exec(textOf(result));
  expect(match, textOf(result)).not.toBeNull();
  return match![1]!;
}

export interface RecordedTrace {
  id: string;
  final_outcome: string;
  resource_scope: string;
  requested_operation: string;
  events: { event_type: string; metadata: Record<string, unknown> }[];
}

/** The agent's newest trace, with its events, after checking its hash chain holds. */
export async function newestTrace(t: TestApp, governed: GovernedTenant): Promise<RecordedTrace> {
  const list = await apiClient(t).get(governed.tenant.admin, `/api/v1/traces?agent_id=${governed.agentId}&limit=1`);
  expect(list.statusCode, list.body).toBe(200);
  return trace(t, governed, list.json().data[0].id);
}

export async function trace(t: TestApp, governed: GovernedTenant, id: string): Promise<RecordedTrace> {
  const api = apiClient(t);
  const detail = await api.get(governed.tenant.admin, `/api/v1/traces/${id}`);
  expect(detail.statusCode, detail.body).toBe(200);
  const verified = await api.get(governed.tenant.admin, `/api/v1/traces/${id}/verify`);
  expect(verified.json().valid, verified.body).toBe(true);
  return detail.json();
}

/** The count of the agent's traces, to show that a call made none. */
export async function traceCount(t: TestApp, governed: GovernedTenant): Promise<number> {
  const list = await apiClient(t).get(governed.tenant.admin, `/api/v1/traces?agent_id=${governed.agentId}&limit=1`);
  return list.json().pagination.total;
}

/** A TCP relay to `target` that a test can cut, as a network partition would: open connections drop, new ones are refused. */
export async function cuttableRelay(target: string): Promise<{ url: string; cut(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
