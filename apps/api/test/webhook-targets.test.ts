import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../../test/receiver.js';
import { expectValidationError } from './assertions.js';
import { request, signupTenant, type Credential, type Tenant, type TestApp, useTestApp } from './harness.js';

// CONTRACT "Hardening decisions", webhook targets: only production blocks the non-unicast
// ranges (checked on create, PATCH, test and every send); development also takes plain
// http on the local host. Both apps share the harness's database.
const prod = useTestApp({ env: { NODE_ENV: 'production' } });
const dev = useTestApp({ env: { NODE_ENV: 'development', WEBHOOK_TIMEOUT_MS: '2000' } });

/** A public unicast IP literal: production accepts it without resolving any name. */
const PUBLIC_URL = 'https://93.184.215.14/hook';
const PUBLIC_V6_URL = 'https://[2606:4700::1111]/hook';
const DEV_HTTP_REFUSAL = 'must use https (plain http only on localhost, 127.0.0.1 or [::1])';

type App = TestApp['app'];
const create = (app: App, credential: Credential, url: string) =>
  request(app, credential, { method: 'POST', url: '/api/v1/webhooks', payload: { url, events: ['approval.requested'] } });
const patch = (app: App, credential: Credential, id: string, url: string) =>
  request(app, credential, { method: 'PATCH', url: `/api/v1/webhooks/${id}`, payload: { url } });
const sendTest = (app: App, credential: Credential, id: string) =>
  request(app, credential, { method: 'POST', url: `/api/v1/webhooks/${id}/test` });

async function createdId(app: App, credential: Credential, url: string): Promise<string> {
  const response = await create(app, credential, url);
  expect(response.statusCode, response.body).toBe(201);
  expect(response.json().data.url).toBe(url);
  return response.json().data.id;
}

/** A 400 `validation_error` naming only `url`, with exactly this reason. */
function expectUrlRefused(response: Awaited<ReturnType<typeof create>>, reason: string) {
  expectValidationError(response, `url ${reason}`, [{ field: 'url', message: reason }]);
}

/** The address this machine resolves `localhost` to first (127.0.0.1, or ::1 where IPv6 comes first). */
const LOCALHOST = (await lookup('localhost', { all: true }))[0]!.address;

const blocked = (address: string, range: string) => `points to a blocked address: ${address} (${range})`;

describe('webhook targets in production', () => {
  let tenant: Tenant;
  let endpointId: string;
  beforeAll(async () => {
    tenant = await signupTenant(prod.app);
    endpointId = await createdId(prod.app, tenant.admin, PUBLIC_URL);
  });

  it.each<[string, string]>([
    ['https://127.0.0.1/', blocked('127.0.0.1', 'loopback')],
    ['https://127.1.2.3/', blocked('127.1.2.3', 'loopback')],
    ['https://10.0.0.1/', blocked('10.0.0.1', 'private')],
    ['https://172.16.5.4/', blocked('172.16.5.4', 'private')],
    ['https://172.31.255.255/', blocked('172.31.255.255', 'private')],
    ['https://192.168.1.1/', blocked('192.168.1.1', 'private')],
    ['https://169.254.169.254/latest/meta-data', blocked('169.254.169.254', 'link-local')],
    ['https://100.64.0.1/', blocked('100.64.0.1', 'carrier-grade NAT')],
    ['https://0.0.0.0/', blocked('0.0.0.0', 'unspecified')],
    ['https://224.0.0.1/', blocked('224.0.0.1', 'multicast')],
    ['https://240.0.0.1/', blocked('240.0.0.1', 'reserved')],
    ['https://[::1]/', blocked('::1', 'loopback')],
    ['https://[fe80::1]/', blocked('fe80::1', 'link-local')],
    ['https://[fd00::1]/', blocked('fd00::1', 'unique local')],
    ['https://[fc00::1]/', blocked('fc00::1', 'unique local')],
    // The URL parser writes mapped addresses in hex; the reason names the embedded range.
    ['https://[::ffff:10.0.0.1]/', blocked('::ffff:a00:1', 'IPv4-mapped IPv6 (private)')],
    ['https://[::ffff:127.0.0.1]/', blocked('::ffff:7f00:1', 'IPv4-mapped IPv6 (loopback)')],
    ['https://[::127.0.0.1]/', blocked('::7f00:1', 'IPv4-compatible IPv6')],
    // Decimal, hex and octal hosts are read as the dotted address they stand for.
    ['http://2130706433/', 'must use https'],
    ['https://2130706433/', blocked('127.0.0.1', 'loopback')],
    ['https://0x7f.1/', blocked('127.0.0.1', 'loopback')],
    ['https://017700000001/', blocked('127.0.0.1', 'loopback')],
    ['https://localhost/', `names localhost, which resolves to a blocked address: ${LOCALHOST} (loopback)`],
    ['http://93.184.215.14/', 'must use https'],
  ])('refuses %s at create and at PATCH: %s', async (url, reason) => {
    expectUrlRefused(await create(prod.app, tenant.admin, url), reason);
    expectUrlRefused(await patch(prod.app, tenant.admin, endpointId, url), reason);

    // Nothing was created and the PATCHed endpoint kept its URL.
    const list = await request(prod.app, tenant.admin, { method: 'GET', url: '/api/v1/webhooks' });
    expect(list.json().data.map((e: { id: string; url: string }) => [e.id, e.url])).toEqual([[endpointId, PUBLIC_URL]]);
  });

  it.each([PUBLIC_URL, PUBLIC_V6_URL])('accepts the public https address %s at create and at PATCH', async (url) => {
    const other = await signupTenant(prod.app);
    await createdId(prod.app, other.admin, url);
    const id = await createdId(prod.app, other.admin, url === PUBLIC_URL ? PUBLIC_V6_URL : PUBLIC_URL);
    const patched = await patch(prod.app, other.admin, id, url);
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.url).toBe(url);
  });
});

describe('webhook targets in development', () => {
  let tenant: Tenant;
  let endpointId: string;
  beforeAll(async () => {
    tenant = await signupTenant(dev.app);
    endpointId = await createdId(dev.app, tenant.admin, PUBLIC_URL);
  });

  it.each([
    'http://127.0.0.1:9/x',
    'http://localhost:9/x',
    'http://[::1]:9/x',
    // Only production blocks the private ranges.
    'https://10.0.0.1/x',
  ])('accepts %s at create and at PATCH', async (url) => {
    await createdId(dev.app, tenant.admin, url);
    const patched = await patch(dev.app, tenant.admin, endpointId, url);
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.url).toBe(url);
  });

  it.each(['http://10.0.0.1/x', 'http://example.com/x'])(
    'refuses plain http off the local host at create and at PATCH: %s',
    async (url) => {
      const other = await signupTenant(dev.app);
      const id = await createdId(dev.app, other.admin, PUBLIC_URL);
      expectUrlRefused(await create(dev.app, other.admin, url), DEV_HTTP_REFUSAL);
      expectUrlRefused(await patch(dev.app, other.admin, id, url), DEV_HTTP_REFUSAL);
      const list = await request(dev.app, other.admin, { method: 'GET', url: '/api/v1/webhooks' });
      expect(list.json().data.map((e: { id: string; url: string }) => [e.id, e.url])).toEqual([[id, PUBLIC_URL]]);
    },
  );
});

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function shut(server: Server | ReturnType<typeof createTcpServer>): Promise<void> {
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('POST /api/v1/webhooks/:id/test checks the target before connecting', () => {
  it('reports a stored plain-http URL as refused in production, and sends nothing', async () => {
    const receiver = await startReceiver(200);
    try {
      // Saved under development rules, then tested by the production server.
      const tenant = await signupTenant(dev.app);
      const id = await createdId(dev.app, tenant.admin, receiver.url);
      const response = await sendTest(prod.app, tenant.admin, id);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ delivered: false, http_status: null, response_time_ms: 0, error: 'url must use https' });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('reports a stored https URL on a blocked address as refused in production, without opening a connection', async () => {
    // A bare TCP listener: it counts connections, which a TLS attempt would open.
    let connections = 0;
    const listener = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    const port = await listen(listener);
    try {
      const tenant = await signupTenant(dev.app);
      const id = await createdId(dev.app, tenant.admin, `https://127.0.0.1:${port}/hook`);

      const refused = await sendTest(prod.app, tenant.admin, id);
      expect(refused.statusCode, refused.body).toBe(200);
      expect(refused.json()).toEqual({
        delivered: false,
        http_status: null,
        response_time_ms: 0,
        error: `url ${blocked('127.0.0.1', 'loopback')}`,
      });
      expect(connections).toBe(0);

      // Control: development does connect to the same stored URL (and the TLS handshake fails).
      const attempted = await sendTest(dev.app, tenant.admin, id);
      expect(attempted.json()).toEqual({
        delivered: false,
        http_status: null,
        response_time_ms: expect.any(Number),
        error: expect.stringMatching(/^connection failed/),
      });
      expect(connections).toBe(1);
    } finally {
      await shut(listener);
    }
  });

  it.each([301, 302, 303, 307, 308])('does not follow a %i redirect', async (status) => {
    const target = await startReceiver(200);
    let redirected = 0;
    const redirector = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        redirected += 1;
        res.writeHead(status, { location: target.url }).end();
      });
    });
    await listen(redirector);
    try {
      const tenant = await signupTenant(dev.app);
      const id = await createdId(dev.app, tenant.admin, `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hook`);
      const response = await sendTest(dev.app, tenant.admin, id);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        delivered: false,
        http_status: status,
        response_time_ms: expect.any(Number),
        error: `redirect (HTTP ${status}) not followed`,
      });
      expect(redirected).toBe(1);
      expect(target.received).toHaveLength(0);
    } finally {
      await shut(redirector);
      await target.close();
    }
  });
});
