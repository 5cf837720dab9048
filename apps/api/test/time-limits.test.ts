import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { ConfigError, loadConfig } from '@agov/config';
import { toErrorBody } from '../src/plugins/errors.js';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { createAgent } from './fixtures.js';
import { signupTenant, useTestApp } from './harness.js';

/**
 * The two time limits: a client has REQUEST_TIMEOUT_MS to send its request, and PostgreSQL
 * cancels any statement running past DATABASE_STATEMENT_TIMEOUT_MS, which the API answers 503.
 */
const REQUEST_TIMEOUT_MS = 500;
const STATEMENT_TIMEOUT_MS = 300;

const t = useTestApp({
  env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) },
});
const api = client(t);
let port: number;
beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});

interface RawExchange {
  /** Everything the server sent before it closed the connection. */
  received: string;
  elapsedMs: number;
}

/** Opens a connection, sends `chunks` one after another, and waits for the server to close it. */
function rawExchange(chunks: string[], options: { pauseMs?: number } = {}): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => {
      received += data;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ received, elapsedMs: Date.now() - started }));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        if (options.pauseMs) await new Promise((done) => setTimeout(done, options.pauseMs));
      }
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`connection still open after 5 s; received: ${JSON.stringify(received)}`));
    }, 5_000);
  });
}

function parseResponse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body: JSON.parse(body) as Record<string, unknown> };
}

describe('request time limit (REQUEST_TIMEOUT_MS)', () => {
  it('answers a client that sends only part of its body with 408 in the spec shape, and closes the connection', async () => {
    const { received, elapsedMs } = await rawExchange([
      'POST /api/v1/auth/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n',
      '{"email":"',
    ]);
    const response = parseResponse(received);
    expect(response.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(response.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    expect(response.body).toEqual({
      error: 'request_timeout',
      message: 'The request was not received in time',
      status: 408,
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(response.headers['x-request-id']).toBe(response.body.request_id);
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(received.split('\r\n\r\n')[1] ?? ''));
    expect(elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(elapsedMs).toBeLessThan(2_000);
  });

  it('answers a client that never finishes its headers with 408 too', async () => {
    const { received, elapsedMs } = await rawExchange(['GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n']);
    expect(parseResponse(received)).toMatchObject({ statusLine: 'HTTP/1.1 408 Request Timeout', body: { error: 'request_timeout' } });
    expect(elapsedMs).toBeLessThan(2_000);
  });

  it('answers bytes that are not HTTP with 400 in the spec shape', async () => {
    const { received } = await rawExchange(['NOT HTTP AT ALL\r\n\r\n']);
    expect(parseResponse(received)).toMatchObject({
      statusLine: 'HTTP/1.1 400 Bad Request',
      body: { error: 'validation_error', status: 400, request_id: expect.any(String) },
    });
  });

  it('does not count the time a kept-alive connection sits idle between requests', async () => {
    const get = 'GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n';
    const close = 'GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n';
    const { received } = await rawExchange([get, close], { pauseMs: REQUEST_TIMEOUT_MS * 3 });
    expect(received.match(/HTTP\/1\.1 \d{3} [^\r]*/g)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  });
});

describe('statement time limit (DATABASE_STATEMENT_TIMEOUT_MS)', () => {
  it('has PostgreSQL cancel a statement past the limit, and the connection goes on working', async () => {
    const started = Date.now();
    const error = await t.runtime.database.db.execute(sql`select pg_sleep(1)`).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(Date.now() - started).toBeLessThan(800);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error & { cause?: { code?: string } }).cause?.code).toBe('57014');

    const rows = await t.runtime.database.rows<{ one: number }>(sql`select 1 as one`);
    expect(rows).toEqual([{ one: 1 }]);
    expect(await t.runtime.database.rows(sql`show statement_timeout`)).toEqual([{ statement_timeout: `${STATEMENT_TIMEOUT_MS}ms` }]);
  });

  it('gets the limit back on reset, as migrations do after waiting for their lock', async () => {
    const shown = await t.runtime.database.db.transaction(async (tx) => {
      await tx.execute(sql`set statement_timeout = 0`);
      await tx.execute(sql`reset statement_timeout`);
      return t.runtime.database.rows(sql`show statement_timeout`, tx);
    });
    expect(shown).toEqual([{ statement_timeout: `${STATEMENT_TIMEOUT_MS}ms` }]);
  });

  it('answers a cancelled statement with 503 service_unavailable', async () => {
    const error = await t.runtime.database.db.execute(sql`select pg_sleep(1)`).catch((caught: unknown) => caught);
    expect(toErrorBody(error as never, 'req-1')).toEqual({
      error: 'service_unavailable',
      message: 'The database took too long to answer',
      status: 503,
      request_id: 'req-1',
    });
  });

  it('answers 503 when a request waits on a row lock past the limit', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    // Another session holds the agent's row: the update waits for it until PostgreSQL gives up.
    const other = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
    try {
      const response = await other.begin(async (tx) => {
        await tx`select id from agents where id = ${agent.id} for update`;
        return api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, { autonomy_tier: 'high' });
      });
      expectErrorBody(response, 503, { error: 'service_unavailable', message: 'The database took too long to answer' });
    } finally {
      await other.end();
    }
    const after = await api.patch(tenant.admin, `/api/v1/agents/${agent.id}`, { autonomy_tier: 'high' });
    expect(after.statusCode).toBe(200);
  });
});

describe('time limit settings', () => {
  it('default to 30 s per request and 15 s per statement', () => {
    const config = loadConfig({});
    expect(config.requestTimeoutMs).toBe(30_000);
    expect(config.databaseStatementTimeoutMs).toBe(15_000);
  });

  it.each([
    ['REQUEST_TIMEOUT_MS', 'abc'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['REQUEST_TIMEOUT_MS', '1.5'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', 'abc'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '99999999999'],
  ])('reject %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });
});
