import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createClient, GovernanceError } from '@agov/sdk';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from './gateway.js';

/** The one path the Streamable HTTP transport answers at. */
export const MCP_PATH = '/mcp';
/** Largest JSON-RPC message accepted. */
const BODY_LIMIT = 4 * 1024 * 1024;
/** How long a key the governance API accepted is trusted without asking again. */
const KEY_TRUST_MS = 30_000;

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  /** The key that opened it: a session answers only to the credential that started it. */
  readonly keyDigest: string;
}

/**
 * Serves the gateway over Streamable HTTP at `/mcp`, one MCP session per client. Every request
 * carries `Authorization: Bearer <API key>`, a key of the tenant the gateway is configured
 * for, as the governance API itself says.
 */
export function createHttpServer(gateway: Gateway, host: string): Server {
  const sessions = new Map<string, Session>();
  const keys = new KeyCheck(gateway);
  const loopbackOnly = LOOPBACK.has(host);

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? '/', 'http://gateway').pathname !== MCP_PATH)
      return reply(response, 404, 'Not found: the MCP endpoint is /mcp');
    if (loopbackOnly && !fromLoopbackName(request)) {
      return reply(response, 403, 'Forbidden: a gateway on the loopback interface answers only to a loopback Host and Origin');
    }
    const key = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const verdict = key ? await keys.check(key) : 'unauthorized';
    if (verdict === 'unavailable')
      return reply(response, 503, 'The governance API cannot be reached to check the key', { 'retry-after': '5' });
    if (verdict === 'unauthorized') {
      return reply(response, 401, 'An API key of the governance service is required as a bearer token', { 'www-authenticate': 'Bearer' });
    }
    const keyDigest = digest(key!);

    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // Another key's session is as good as unknown to this caller.
      if (!session || session.keyDigest !== keyDigest) return reply(response, 404, 'Session not found');
      return session.transport.handleRequest(request, response, request.method === 'POST' ? await readJson(request) : undefined);
    }
    if (request.method !== 'POST') return reply(response, 400, 'Bad Request: no valid session ID provided');
    const body = await readJson(request);
    if (!isInitializeRequest(body)) return reply(response, 400, 'Bad Request: no valid session ID provided');

    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, keyDigest });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await gateway.openSession().connect(transport);
    await transport.handleRequest(request, response, body);
  };

  return createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (error instanceof BadBody) return reply(response, error.status, error.message);
      gateway.options.log.error({ err: error }, 'MCP request failed');
      if (!response.headersSent) reply(response, 500, 'Internal error');
      else response.end();
    });
  });
}

/**
 * Accepts a key the governance API knows as one of the configured tenant's, asking it once
 * per key and then trusting the answer for `KEY_TRUST_MS`; a revoked key stops working within
 * that time. Keys are held only as digests.
 */
class KeyCheck {
  private readonly trusted = new Map<string, number>();
  private tenant: Promise<string> | null = null;

  constructor(private readonly gateway: Gateway) {}

  async check(key: string): Promise<'ok' | 'unauthorized' | 'unavailable'> {
    const keyDigest = digest(key);
    if ((this.trusted.get(keyDigest) ?? 0) > Date.now()) return 'ok';
    try {
      const [tenant, expected] = await Promise.all([this.tenantOf(key), this.configuredTenant()]);
      if (tenant !== expected) return 'unauthorized';
      // Lapsed entries go as new ones come, so the map holds only the keys of the last KEY_TRUST_MS.
      for (const [known, until] of this.trusted) if (until <= Date.now()) this.trusted.delete(known);
      this.trusted.set(keyDigest, Date.now() + KEY_TRUST_MS);
      return 'ok';
    } catch (error) {
      if (error instanceof GovernanceError && (error.status === 401 || error.status === 403)) return 'unauthorized';
      this.gateway.options.log.warn({ err: error }, 'an MCP client key could not be checked');
      return 'unavailable';
    }
  }

  private configuredTenant(): Promise<string> {
    this.tenant ??= this.tenantOf(this.gateway.options.config.governance.apiKey).catch((error: unknown) => {
      this.tenant = null;
      throw error;
    });
    return this.tenant;
  }

  private async tenantOf(key: string): Promise<string> {
    const client = createClient({ baseUrl: this.gateway.options.config.governance.url, apiKey: key, retry: false });
    const { data } = await client.api.GET('/api/v1/auth/me');
    return data!.data.tenant.id;
  }
}

const digest = (key: string) => createHash('sha256').update(key).digest('hex');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * DNS rebinding: a web page can make a browser send requests to a local port under the page's
 * own host name. A gateway on the loopback interface therefore answers only requests that name
 * a loopback host (and, from a browser, come from a loopback origin).
 */
function fromLoopbackName(request: IncomingMessage): boolean {
  const hostname = (value: string) => {
    try {
      return new URL(value).hostname;
    } catch {
      return null;
    }
  };
  const host = hostname(`http://${request.headers.host ?? ''}`);
  if (host === null || !LOOPBACK_NAMES.has(host)) return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  const from = hostname(origin);
  return from !== null && LOOPBACK_NAMES.has(from);
}

class BadBody extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new BadBody(413, `Request body larger than ${BODY_LIMIT} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadBody(400, 'Parse error: the body is not JSON');
  }
}

/** A JSON-RPC error body, as the transport itself answers one. */
function reply(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  const code = status === 400 && message.startsWith('Parse error') ? -32700 : -32000;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
