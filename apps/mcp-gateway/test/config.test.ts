import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, parseConfig } from '../src/config/load.js';
import { configFile, EXAMPLE, GATEWAY } from './support.js';

const AGENT = '6a3f4c1e-0000-4000-8000-000000000001';
const problemsOf = (text: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    parseConfig(text, 'gateway.yaml', env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
};

describe('parseConfig', () => {
  it('reads the configuration in the documented shape, expanding environment variables inside a flow map', () => {
    const config = parseConfig(
      `governance: { url: http://127.0.0.1:4000/, api_key: \${AGOV_API_KEY}, agent_id: ${AGENT} }
approval_wait_seconds: 300
servers:
  fs:
    command: npx
    args: [-y, "@modelcontextprotocol/server-filesystem", /srv/data]
    target_integration: filesystem
    defaults: { operation: execute, data_classification: internal }
    tools:
      read_text_file: { operation: read, resource_scope: "{path}" }
  remote:
    url: https://tools.example.test/mcp
    headers: { authorization: "Bearer \${REMOTE_TOKEN}" }
`,
      'gateway.yaml',
      { AGOV_API_KEY: 'ai_key', REMOTE_TOKEN: 'secret' },
    );
    expect(config.governance).toEqual({ url: 'http://127.0.0.1:4000', apiKey: 'ai_key', agentId: AGENT });
    expect(config.approvalWaitMs).toBe(300_000);
    expect(config.servers.map((server) => [server.name, server.transport.kind, server.targetIntegration])).toEqual([
      ['fs', 'stdio', 'filesystem'],
      ['remote', 'http', 'remote'],
    ]);
    expect(config.servers[0]!.transport).toMatchObject({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'],
    });
    expect(config.servers[1]!.transport).toMatchObject({ headers: { authorization: 'Bearer secret' } });
    expect(config.servers[0]!.callTimeoutMs).toBe(60_000);
  });

  it('reads the example configuration', async () => {
    const config = await loadConfigFile(EXAMPLE, { AGOV_URL: 'http://127.0.0.1:4000', AGOV_API_KEY: 'ai_key', AGOV_AGENT_ID: AGENT });
    expect(config.servers.map((server) => server.name)).toEqual(['fs']);
    expect(config.servers[0]!.tools.write_file).toEqual({
      operation: 'write',
      resource_scope: '{path}',
      data_classification: 'confidential',
    });
  });

  it('names the line and column of every problem, all at once', () => {
    expect(
      problemsOf(`governance: { url: ftp://x, api_key: \${MISSING}, agent_id: not-a-uuid }
servers:
  fs:
    command: npx
    tools:
      read: { operation: read, data_classification: secret, colour: blue }
`),
    ).toEqual([
      "gateway.yaml:1:20: governance.url: expected string to match '^https?://'",
      'gateway.yaml:1:38: environment variable MISSING is not set',
      'gateway.yaml:1:38: governance.api_key: expected string length greater or equal to 1',
      "gateway.yaml:1:60: governance.agent_id: must be the agent's id (a UUID)",
      'gateway.yaml:6:53: servers.fs.tools.read.data_classification: must be one of public, internal, confidential, restricted',
      'gateway.yaml:6:69: servers.fs.tools.read.colour: is not a setting the gateway knows',
    ]);
  });

  it('refuses a server with both or neither of command and url, and a name that holds the separator', () => {
    const governance = `governance: { url: http://x, api_key: k, agent_id: ${AGENT} }\n`;
    expect(problemsOf(`${governance}servers:\n  both: { command: a, url: http://b }\n`)).toEqual([
      'gateway.yaml:3:9: servers.both: give either command (a server started over stdio) or url (Streamable HTTP), not both or neither',
    ]);
    expect(problemsOf(`${governance}servers:\n  none: { target_integration: x }\n`)[0]).toContain('servers.none: give either command');
    expect(problemsOf(`${governance}servers:\n  a__b: { command: a }\n`)).toEqual([
      "gateway.yaml:3:9: servers.a__b: a server's name is letters, digits, '-' and single '_' (its tools are exposed as <name>__<tool>)",
    ]);
    expect(problemsOf(`${governance}servers: {}\n`)[0]).toMatch(/^gateway.yaml:2:10: servers: /);
  });

  it('names the line of a YAML syntax error, and never lets a variable’s value change the structure', () => {
    expect(problemsOf('servers: [\n')[0]).toMatch(/^gateway.yaml:2:1: Flow sequence/);
    const config = parseConfig(
      `governance: { url: http://x, api_key: \${KEY}, agent_id: ${AGENT} }\nservers:\n  fs: { command: a }\n`,
      'gateway.yaml',
      { KEY: 'x, agent_id: other }\nservers: {}' },
    );
    expect(config.governance.apiKey).toBe('x, agent_id: other }\nservers: {}');
    expect(config.servers).toHaveLength(1);
  });
});

describe('agov-mcp-gateway at start', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, [GATEWAY, ...args], { env: { PATH: process.env.PATH } }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it('refuses a configuration with exit status 2, every problem on standard error and nothing on standard output', async () => {
    const config = configFile(
      `governance: { url: http://127.0.0.1:4000, api_key: \${AGOV_API_KEY}, agent_id: ${AGENT} }\nservers:\n  fs: { command: npx, colour: blue }\n`,
    );
    const { code, stdout, stderr } = await run(['--config', config]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(
      `agov-mcp-gateway: the configuration cannot be used:\n  ${config}:1:52: environment variable AGOV_API_KEY is not set\n  ${config}:1:52: governance.api_key: expected string length greater or equal to 1\n  ${config}:3:31: servers.fs.colour: is not a setting the gateway knows\n`,
    );
  });

  it('asks for --config, and shows its usage with --help', async () => {
    expect(await run([])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('--config FILE is required') });
    expect(await run(['--config', '/nonexistent/gateway.yaml'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('/nonexistent/gateway.yaml: cannot read the file (ENOENT)'),
    });
    expect(await run(['--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('Usage: agov-mcp-gateway --config FILE [--http PORT]'),
    });
  });
});
