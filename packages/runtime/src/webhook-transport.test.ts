import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookTransport, webhookTargets } from './webhook-transport.js';

interface Receiver {
  url: string;
  port: number;
  /** Requests whose headers arrived, with their bodies once read. */
  received: { method: string | undefined; headers: IncomingMessage['headers']; body: Promise<string> }[];
  connections: Socket[];
}

const servers: ReturnType<typeof createServer>[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
});

/** A real HTTP receiver on 127.0.0.1 that records what reaches it. */
async function receiver(respond: (request: IncomingMessage, response: ServerResponse) => void): Promise<Receiver> {
  const server = createServer();
  servers.push(server);
  const state: Receiver = { url: '', port: 0, received: [], connections: [] };
  server.on('connection', (socket: Socket) => state.connections.push(socket));
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    state.received.push({ method: request.method, headers: request.headers, body: textOf(request) });
    respond(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}/hooks/in`;
  return state;
}

async function textOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const body = JSON.stringify({ id: 'evt_1', event: 'test', data: { message: 'hi' } });
const headers = { 'content-type': 'application/json', 'x-webhook-id': 'del_1' };
const outbound = (url: string, timeoutMs = 5_000) => ({ url, body, headers, timeoutMs });

describe('webhook transport', () => {
  it('POSTs the body with the given headers and reports a 2xx as delivered', async () => {
    const target = await receiver((_request, response) => response.writeHead(204).end());
    const result = await createWebhookTransport(webhookTargets('development')).post(outbound(target.url));

    expect(result).toEqual({ ok: true, status: 204, durationMs: expect.any(Number) });
    expect(Number.isInteger(result.durationMs)).toBe(true);
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.method).toBe('POST');
    expect(target.received[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-webhook-id': 'del_1' });
    expect(await target.received[0]!.body).toBe(body);
  });

  it('reports a non-2xx status without quoting the answer', async () => {
    const target = await receiver((_request, response) => response.writeHead(500).end('stack trace with internals'));
    const result = await createWebhookTransport(webhookTargets('development')).post(outbound(target.url));
    expect(result).toEqual({ ok: false, status: 500, durationMs: expect.any(Number), error: 'HTTP 500' });
  });

  it('does not follow a redirect', async () => {
    const elsewhere = await receiver((_request, response) => response.writeHead(200).end());
    const target = await receiver((_request, response) => response.writeHead(302, { location: elsewhere.url }).end());
    const result = await createWebhookTransport(webhookTargets('development')).post(outbound(target.url));

    expect(result).toEqual({
      ok: false,
      status: 302,
      durationMs: expect.any(Number),
      error: 'redirect (HTTP 302) not followed',
    });
    expect(elsewhere.connections).toHaveLength(0);
  });

  const TIMED_OUT_AFTER_300_MS = {
    ok: false,
    durationMs: expect.any(Number),
    error: 'timed out after 300 ms',
    timedOut: true,
  };

  it('gives up on a receiver that never answers once the time limit passes', async () => {
    const target = await receiver(() => {});
    const started = Date.now();
    const result = await createWebhookTransport(webhookTargets('development')).post(outbound(target.url, 300));

    expect(result).toEqual(TIMED_OUT_AFTER_300_MS);
    expect(result.durationMs).toBeGreaterThanOrEqual(299);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('counts the time spent receiving the answer against the same limit', async () => {
    const target = await receiver((_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('only the first bytes');
    });
    const started = Date.now();
    const result = await createWebhookTransport(webhookTargets('development')).post(outbound(target.url, 300));

    expect(result).toEqual(TIMED_OUT_AFTER_300_MS);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('stops reading an endless answer and closes the connection', async () => {
    let socketClosed: Promise<unknown> = Promise.resolve();
    const target = await receiver((request, response) => {
      // The receiver's socket is reset when the sender gives up, so only 'close' is awaited.
      socketClosed = new Promise((resolve) => request.socket.on('close', resolve));
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
      };
      response.on('drain', pump);
      pump();
    });
    const started = Date.now();
    const result = await createWebhookTransport(webhookTargets('development')).post(outbound(target.url, 10_000));

    expect(result).toEqual({ ok: true, status: 200, durationMs: expect.any(Number) });
    expect(Date.now() - started).toBeLessThan(1_000);
    await socketClosed;
  });

  it('reports a refused connection briefly', async () => {
    const target = await receiver(() => {});
    const server = servers.pop()!;
    server.close();
    await once(server, 'close');
    const result = await createWebhookTransport(webhookTargets('development')).post(outbound(target.url));
    expect(result).toEqual({
      ok: false,
      durationMs: expect.any(Number),
      error: 'connection failed (ECONNREFUSED)',
    });
  });

  it('keeps working for later sends on the same transport', async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end('ok'));
    const transport = createWebhookTransport(webhookTargets('development'));
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await transport.post(outbound(target.url))).ok).toBe(true);
    }
    expect(target.received).toHaveLength(3);
  });
});

describe('webhook transport in production', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', 'loopback'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1', 'IPv4-mapped IPv6 (loopback)'],
  ])('refuses the IP literal %s before connecting', async (host, address, reason) => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    const result = await createWebhookTransport(webhookTargets('production')).post(outbound(`http://${host}:${target.port}/`));

    expect(result).toEqual({
      ok: false,
      durationMs: expect.any(Number),
      error: `address ${address} is not allowed (${reason})`,
    });
    expect(target.connections).toHaveLength(0);
  });

  it('refuses a name that resolves to a private address before connecting', async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    const result = await createWebhookTransport(webhookTargets('production')).post(outbound(`http://localhost:${target.port}/`));

    expect(result).toEqual({
      ok: false,
      durationMs: expect.any(Number),
      error: expect.stringMatching(/^address (127\.0\.0\.1|::1) is not allowed \(loopback\)$/),
    });
    expect(target.connections).toHaveLength(0);
  });
});

describe('webhook targets', () => {
  it('allows local targets and plain http on the local host in development only', () => {
    expect(webhookTargets('development')).toMatchObject({ allowPrivate: true, allowLocalHttp: true });
    expect(webhookTargets('production')).toMatchObject({ allowPrivate: false, allowLocalHttp: false });
  });

  it('resolves a name to every address it has, and a name that does not resolve to none', async () => {
    const { resolve } = webhookTargets('production');
    const loopback = await resolve('localhost');
    expect(loopback.length).toBeGreaterThan(0);
    for (const address of loopback) expect(['127.0.0.1', '::1']).toContain(address);
    expect(await resolve('no-such-host.invalid')).toEqual([]);
  });
});
