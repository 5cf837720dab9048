import { type ChildProcess, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/processes.js';
import { useTestApp } from '../../api/test/harness.js';
import {
  type Connected,
  configFile,
  EVERYTHING_SERVER,
  type GovernedTenant,
  governedTenant,
  listening,
  newestTrace,
  stdioGateway,
  textOf,
} from './support.js';

/**
 * The reference server that exercises every MCP feature, behind the gateway: whatever it
 * offers works through the gateway as it does directly, or is refused with a governed error
 * (here `get-env`, which a rule denies because the environment may hold secrets).
 */
const t = useTestApp();
let governed: GovernedTenant;
let gateway: Connected;
let direct: Client;
let apiUrl: string;

beforeAll(async () => {
  apiUrl = await listening(t);
  governed = await governedTenant(t, 'everything');
  await governed.rule({ operation: 'execute', policy_effect: 'allow', priority: 10 });
  await governed.rule({
    operation: 'execute',
    resource_scope: 'get-env',
    policy_effect: 'deny',
    priority: 20,
    rationale: 'The environment may hold secrets.',
  });
  gateway = await stdioGateway(
    configFile(`
governance: { url: ${apiUrl}, api_key: \${AGOV_API_KEY}, agent_id: ${governed.agentId} }
servers:
  everything:
    command: ${process.execPath}
    args: [${EVERYTHING_SERVER}, stdio]
`),
    { AGOV_API_KEY: governed.tenant.runtimeKey.apiKey },
  );
  direct = new Client({ name: 'gateway-test', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' }));
});

afterAll(async () => {
  await gateway?.close();
  await direct?.close();
});

const through = (name: string) => `everything__${name}`;

/**
 * The server stamps each dynamic resource with the time of day, to the second, at the end of
 * its text or blob; two reads a moment apart may differ there and nowhere else.
 */
function unstamped(value: unknown): unknown {
  const STAMP = /created at .*$/s;
  return JSON.parse(JSON.stringify(value), (key, field) => {
    if (typeof field !== 'string') return field;
    if (key === 'text') return field.replace(STAMP, 'created at (time)');
    if (key === 'blob') {
      const bytes = Buffer.from(field, 'base64').toString('latin1');
      return Buffer.from(bytes.replace(STAMP, 'created at (time)'), 'latin1').toString('base64');
    }
    return field;
  });
}

/** Arguments a tool accepts: each required property given its first enum value, a word, or a small number. */
function argumentsFor(tool: Tool): Record<string, unknown> {
  if (tool.name === 'gzip-file-as-resource') return { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8=' };
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  return Object.fromEntries(
    (tool.inputSchema.required ?? []).map((name) => {
      const property = properties[name]!;
      return [name, property.enum?.[0] ?? (property.type === 'number' ? 2 : 'hello')];
    }),
  );
}

describe('server-everything behind the gateway', () => {
  it('lists every tool, resource, template and prompt it offers, under its prefix and otherwise unchanged', async () => {
    const [tools, prompts, resources, templates] = await Promise.all([
      direct.listTools(),
      direct.listPrompts(),
      direct.listResources(),
      direct.listResourceTemplates(),
    ]);
    // The gateway serves no tasks: a tool's task support is left out, and every tool is called plainly.
    expect((await gateway.client.listTools()).tools).toEqual(
      tools.tools.map(({ execution: _execution, ...tool }) => ({ ...tool, name: through(tool.name) })),
    );
    expect((await gateway.client.listPrompts()).prompts).toEqual(
      prompts.prompts.map((prompt) => ({ ...prompt, name: through(prompt.name) })),
    );
    expect((await gateway.client.listResources()).resources).toEqual(
      resources.resources.map((resource) => ({ ...resource, name: through(resource.name) })),
    );
    expect((await gateway.client.listResourceTemplates()).resourceTemplates).toEqual(
      templates.resourceTemplates.map((template) => ({ ...template, name: through(template.name) })),
    );
  });

  it('answers every tool as the server does directly, but the denied one, which is a governed error', async () => {
    const { tools } = await direct.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    for (const tool of tools) {
      if (tool.name === 'trigger-long-running-operation') continue; // below, with its progress
      const args = argumentsFor(tool);
      const governedResult = await gateway.client.callTool({ name: through(tool.name), arguments: args });
      if (tool.execution?.taskSupport === 'required') {
        expect(governedResult.isError).toBe(true);
        expect(textOf(governedResult)).toBe(
          `Refused without evaluation: ${through(tool.name)} runs only as a task, which the gateway does not serve. The call was not made.`,
        );
        continue;
      }
      if (tool.name === 'get-env') {
        expect(governedResult.isError).toBe(true);
        expect(textOf(governedResult)).toMatch(/^Denied by policy: The environment may hold secrets\. \(trace [0-9a-f-]{36}\)$/);
        continue;
      }
      expect(unstamped(governedResult), tool.name).toEqual(unstamped(await direct.callTool({ name: tool.name, arguments: args })));
    }
  });

  it('reads every resource and a templated one, and gets every prompt, as directly', async () => {
    const { resources } = await direct.listResources();
    for (const { uri } of [...resources, { uri: 'demo://resource/dynamic/text/1' }, { uri: 'demo://resource/dynamic/blob/2' }]) {
      expect(unstamped(await gateway.client.readResource({ uri })), uri).toEqual(unstamped(await direct.readResource({ uri })));
    }
    const { prompts } = await direct.listPrompts();
    for (const prompt of prompts) {
      const args = Object.fromEntries(
        (prompt.arguments ?? []).map((argument) => [
          argument.name,
          argument.name === 'resourceId' ? '1' : argument.name === 'resourceType' ? 'Text' : 'Paris',
        ]),
      );
      expect(unstamped(await gateway.client.getPrompt({ name: through(prompt.name), arguments: args })), prompt.name).toEqual(
        unstamped(await direct.getPrompt({ name: prompt.name, arguments: args })),
      );
    }
  });

  it('relays the tool’s progress as it comes directly', async () => {
    const call = async (client: Client, name: string) => {
      const progress: number[] = [];
      const result = await client.callTool({ name, arguments: { duration: 1, steps: 4 } }, undefined, {
        onprogress: (update) => progress.push(update.progress),
      });
      return { result, progress };
    };
    const [governedCall, directCall] = await Promise.all([
      call(gateway.client, through('trigger-long-running-operation')),
      call(direct, 'trigger-long-running-operation'),
    ]);
    expect(governedCall.result).toEqual(directCall.result);
    // The server's last notification races its own result, directly as through the gateway,
    // so either may end one step short; what arrives is the server's numbering, in order.
    for (const { progress } of [governedCall, directCall])
      expect([
        [1, 2, 3],
        [1, 2, 3, 4],
      ]).toContainEqual(progress);
  });

  it('passes a cancellation on, and records the call as failed', async () => {
    const controller = new AbortController();
    const progress: number[] = [];
    const call = gateway.client.callTool(
      { name: through('trigger-long-running-operation'), arguments: { duration: 30, steps: 30 } },
      undefined,
      {
        signal: controller.signal,
        onprogress: (update) => progress.push(update.progress),
      },
    );
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await expect.poll(async () => (await newestTrace(t, governed)).final_outcome).toBe('blocked');
  });
});

describe('a downstream server reached over Streamable HTTP', () => {
  let server: ChildProcess;
  let remote: Connected;

  beforeAll(async () => {
    const port = await freePort();
    server = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      server.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('listening on port') && resolve());
      server.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
    });
    remote = await stdioGateway(
      configFile(`
governance: { url: ${apiUrl}, api_key: \${AGOV_API_KEY}, agent_id: ${governed.agentId} }
servers:
  everything:
    url: http://127.0.0.1:${port}/mcp
`),
      { AGOV_API_KEY: governed.tenant.runtimeKey.apiKey },
    );
  });

  afterAll(async () => {
    await remote?.close();
    server?.kill('SIGTERM');
  });

  it('lists its tools and governs their calls as over stdio', async () => {
    expect((await remote.client.listTools()).tools.map((tool) => tool.name)).toContain('everything__echo');
    expect(textOf(await remote.client.callTool({ name: through('echo'), arguments: { message: 'over http' } }))).toBe('Echo: over http');
    const denied = await remote.client.callTool({ name: through('get-env'), arguments: {} });
    expect(textOf(denied)).toMatch(/^Denied by policy: The environment may hold secrets\./);
  });
});
