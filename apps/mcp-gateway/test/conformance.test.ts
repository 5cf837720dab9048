import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../api/test/harness.js';
import { configFile, EVERYTHING_SERVER, GATEWAY, governedTenant, listening } from './support.js';

const root = join(import.meta.dirname, '../../..');
const CONFORMANCE = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = join(import.meta.dirname, 'conformance-baseline.yml');

/**
 * The MCP conformance suite against the gateway's Streamable HTTP side, with server-everything
 * behind it. The suite cannot send a bearer key, so a relay adds the tenant's key to each
 * request and passes everything else, the Host header included, as it came.
 */
const t = useTestApp();
let gateway: ChildProcess;
let relay: Server;
let relayUrl: string;

beforeAll(async () => {
  const apiUrl = await listening(t);
  const governed = await governedTenant(t, 'everything');
  await governed.rule({ operation: 'execute', policy_effect: 'allow', priority: 10 });
  const config = configFile(`
governance: { url: ${apiUrl}, api_key: \${AGOV_API_KEY}, agent_id: ${governed.agentId} }
servers:
  everything:
    command: ${process.execPath}
    args: [${EVERYTHING_SERVER}, stdio]
`);
  gateway = spawn(process.execPath, [GATEWAY, '--config', config, '--http', '0'], {
    env: { PATH: process.env.PATH, AGOV_API_KEY: governed.tenant.runtimeKey.apiKey },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const gatewayUrl = new URL(
    await new Promise<string>((resolve, reject) => {
      let output = '';
      gateway.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening at (\S+?)"/.exec(output);
        if (match) resolve(match[1]!);
      });
      gateway.once('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${output}`)));
    }),
  );
  relay = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, authorization: `Bearer ${governed.tenant.runtimeKey.apiKey}` };
    const upstream = forward(
      { host: gatewayUrl.hostname, port: gatewayUrl.port, path: incoming.url, method: incoming.method, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayUrl = `http://localhost:${(relay.address() as { port: number }).port}/mcp`;
});

afterAll(async () => {
  gateway?.kill('SIGTERM');
  relay?.closeAllConnections();
  await new Promise((resolve) => relay?.close(resolve));
});

type Check = { id: string; status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO'; errorMessage?: string };

describe('@modelcontextprotocol/conformance against the gateway', () => {
  it('passes every scenario but those the baseline lists, each with its reason', async () => {
    const output = mkdtempSync(join(tmpdir(), 'agov-mcp-conformance-'));
    const run = await promisify(execFile)(
      process.execPath,
      [CONFORMANCE, 'server', '--url', relayUrl, '--expected-failures', BASELINE, '-o', output],
      {
        timeout: 120_000,
      },
    ).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    const results = Object.fromEntries(
      readdirSync(output).map((folder) => [
        folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, ''),
        JSON.parse(readFileSync(join(output, folder, 'checks.json'), 'utf8')) as Check[],
      ]),
    );
    expect(run.code, run.stdout).toBe(0);
    expect(Object.keys(results)).toHaveLength(30);
    const passed = Object.entries(results).filter(([, checks]) => checks.every((check) => check.status === 'SUCCESS'));
    expect(passed.map(([scenario]) => scenario).sort()).toEqual([
      'dns-rebinding-protection',
      'ping',
      'prompts-list',
      'resources-list',
      'server-initialize',
      'server-sse-multiple-streams',
      'tools-list',
    ]);
  });
});
