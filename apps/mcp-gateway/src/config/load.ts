import { readFile } from 'node:fs/promises';
import { Value } from '@sinclair/typebox/value';
import { isScalar, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import { ConfigFile, DATA_CLASSIFICATIONS, type ServerFile, type ToolMapping } from './schema.js';

/** A configuration the gateway cannot start with; each problem names its file and line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

export interface GatewayConfig {
  readonly governance: { readonly url: string; readonly apiKey: string; readonly agentId: string };
  /** Longest a call waits for a reviewer's decision. */
  readonly approvalWaitMs: number;
  readonly servers: readonly ServerConfig[];
}

export type Transport =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Record<string, string>;
      readonly cwd?: string;
    }
  | { readonly kind: 'http'; readonly url: URL; readonly headers: Record<string, string> };

export interface ServerConfig {
  readonly name: string;
  readonly transport: Transport;
  readonly callTimeoutMs: number;
  readonly targetIntegration: string;
  readonly defaults: ToolMapping;
  readonly tools: Readonly<Record<string, ToolMapping>>;
}

const DEFAULT_APPROVAL_WAIT_SECONDS = 300;
const DEFAULT_CALL_TIMEOUT_SECONDS = 60;

export async function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`]);
  }
  return parseConfig(text, path, env);
}

/** Reads the YAML, expands `${NAME}` from `env`, and checks every field; all problems at once. */
export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv): GatewayConfig {
  const lines = new LineCounter();
  // `${NAME}` is not plain YAML inside a flow map (`{ api_key: ${KEY} }`): it is swapped for a
  // marker of the same length that is, and expanded in the parsed values, so a variable's
  // value can never change the file's structure.
  const document = parseDocument(text.replace(VARIABLE, '$<$1>'), { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return `${file}:${line}:${col}`;
  };
  const syntax = document.errors.map((error) => `${at(error.pos[0])}: ${error.message.split('\n')[0]}`);
  if (syntax.length > 0) throw new ConfigError(syntax);

  const found = expandVariables(document, env);
  const value = document.toJS() as unknown;
  for (const error of Value.Errors(ConfigFile, value)) {
    found.push({ offset: offsetOf(document, error.path), message: `${dotted(error.path)}: ${explain(error.path, error.message)}` });
  }
  // In the file's order, as a reader goes through it.
  const problems = found.sort((a, b) => (a.offset ?? 0) - (b.offset ?? 0)).map(({ offset, message }) => `${at(offset)}: ${message}`);
  if (problems.length > 0) throw new ConfigError(problems);

  const config = value as ConfigFile;
  const servers = Object.entries(config.servers).map(([name, server]) => {
    const transport = transportOf(server, (message) =>
      problems.push(`${at(offsetOf(document, `/servers/${name}`))}: servers.${name}: ${message}`),
    );
    return transport && serverConfig(name, server, transport);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    governance: {
      url: config.governance.url.replace(/\/+$/, ''),
      apiKey: config.governance.api_key,
      agentId: config.governance.agent_id.toLowerCase(),
    },
    approvalWaitMs: (config.approval_wait_seconds ?? DEFAULT_APPROVAL_WAIT_SECONDS) * 1000,
    servers: servers.filter((server): server is ServerConfig => server !== null),
  });
}

function transportOf(server: ServerFile, problem: (message: string) => void): Transport | null {
  if ((server.command === undefined) === (server.url === undefined)) {
    problem('give either command (a server started over stdio) or url (Streamable HTTP), not both or neither');
    return null;
  }
  if (server.url !== undefined) {
    if (server.args || server.env || server.cwd) problem('args, env and cwd belong to a server started by command');
    let url: URL;
    try {
      url = new URL(server.url);
    } catch {
      problem(`url: '${server.url}' is not a URL`);
      return null;
    }
    return { kind: 'http', url, headers: server.headers ?? {} };
  }
  if (server.headers) problem('headers belong to a server reached by url');
  return {
    kind: 'stdio',
    command: server.command!,
    args: server.args ?? [],
    ...(server.env && { env: server.env }),
    ...(server.cwd && { cwd: server.cwd }),
  };
}

function serverConfig(name: string, server: ServerFile, transport: Transport): ServerConfig {
  return {
    name,
    transport,
    callTimeoutMs: (server.call_timeout_seconds ?? DEFAULT_CALL_TIMEOUT_SECONDS) * 1000,
    targetIntegration: server.target_integration ?? name,
    defaults: server.defaults ?? {},
    tools: server.tools ?? {},
  };
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const MARKER = /\$<([A-Za-z_][A-Za-z0-9_]*)>/g;

/** Replaces `${NAME}` in every string value; a variable that is not set is a problem at its line. */
function expandVariables(document: Document, env: NodeJS.ProcessEnv) {
  const problems: { offset: number | undefined; message: string }[] = [];
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || !node.value.includes('$<')) return;
      node.value = node.value.replace(MARKER, (_match, name: string) => {
        const value = env[name];
        if (value === undefined || value === '')
          problems.push({ offset: node.range?.[0], message: `environment variable ${name} is not set` });
        return value ?? '';
      });
    },
  });
  return problems;
}

/** Where the value at a JSON pointer starts, or the nearest enclosing value that exists. */
function offsetOf(document: Document, pointer: string): number | undefined {
  const path = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (let length = path.length; length >= 0; length--) {
    const node = document.getIn(path.slice(0, length), true) as Node | undefined;
    if (node && (isScalar(node) || typeof node === 'object') && node.range) return node.range[0];
  }
  return undefined;
}

const dotted = (pointer: string) => pointer.split('/').slice(1).join('.') || '(the file)';

function explain(pointer: string, message: string): string {
  if (/^\/servers\/[^/]+$/.test(pointer) && message === 'Unexpected property') {
    return "a server's name is letters, digits, '-' and single '_' (its tools are exposed as <name>__<tool>)";
  }
  if (pointer === '/governance/agent_id') return "must be the agent's id (a UUID)";
  if (pointer.endsWith('/data_classification')) return `must be one of ${DATA_CLASSIFICATIONS.join(', ')}`;
  if (message === 'Unexpected property') return 'is not a setting the gateway knows';
  return message.replace(/^Expected/, 'expected');
}
