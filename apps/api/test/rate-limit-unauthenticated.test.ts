import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { expectErrorBody } from './assertions.js';
import {
  commitInvalidation,
  createTestApp,
  useTestApp,
  PASSWORD,
  request,
  signupTenant,
  TestClock,
  uniqueEmail,
  type TestApp,
} from './harness.js';
import { expectLimitHeaders, expectRateLimited, stopInWindow, WINDOW_MS } from './rate-limit-support.js';

/*
 * Requests without valid credentials count per client address. Each test comes from an
 * address of its own (inject's remoteAddress), so their counts never meet.
 */
const PER_ADDRESS = 3;
const clock = new TestClock();
const t = useTestApp({ clock, env: { RATE_LIMIT_UNAUTHENTICATED: String(PER_ADDRESS) } });

const fromAddress = (
  remoteAddress: string,
  options: { url: string; method?: 'GET' | 'POST'; payload?: object; headers?: Record<string, string> },
) => t.app.inject({ method: options.method ?? 'GET', remoteAddress, ...options });

const refusedMessage = `Rate limit exceeded: ${PER_ADDRESS} unauthenticated requests per minute`;

describe('requests without valid credentials', () => {
  it('count per address: missing and refused credentials, signup and login alike, each 401 with the headers, then 429', async () => {
    const address = '198.51.100.1';
    const start = stopInWindow(clock, 0);
    const resetAt = start + 2 * WINDOW_MS;

    const none = await fromAddress(address, { url: '/api/v1/agents' });
    expectErrorBody(none, 401, {
      error: 'unauthorized',
      message: 'Authentication required: send Authorization: Bearer <API key> or sign in',
    });
    expectLimitHeaders(none, PER_ADDRESS, 2, resetAt);

    const wrongKey = await fromAddress(address, { url: '/api/v1/agents', headers: { authorization: `Bearer ai_${'0'.repeat(64)}` } });
    expectErrorBody(wrongKey, 401, { error: 'unauthorized', message: 'Invalid, expired or revoked API key' });
    expectLimitHeaders(wrongKey, PER_ADDRESS, 1, resetAt);

    const login = await fromAddress(address, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: uniqueEmail(), password: PASSWORD },
    });
    expect(login.statusCode).toBe(401);
    expectLimitHeaders(login, PER_ADDRESS, 0, resetAt);

    const signup = await fromAddress(address, {
      method: 'POST',
      url: '/api/v1/auth/signup',
      payload: { organization_name: 'Too Many', name: 'T', email: uniqueEmail(), password: PASSWORD },
    });
    expectRateLimited(signup, {
      category: 'unauthenticated',
      limit: PER_ADDRESS,
      message: refusedMessage,
      nowMs: start,
      retryAtMs: start + WINDOW_MS + 20_000,
    });
    // A guessed key is refused before it is even looked at.
    expect(
      (await fromAddress(address, { url: '/api/v1/agents', headers: { authorization: `Bearer ai_${'1'.repeat(64)}` } })).statusCode,
    ).toBe(429);
  });

  it("never hold back a caller with valid credentials, who counts against the tenant's limit", async () => {
    const address = '198.51.100.2';
    const tenant = await signupTenant(t.app);
    stopInWindow(clock, 0);
    for (let i = 0; i < PER_ADDRESS; i += 1) expect((await fromAddress(address, { url: '/api/v1/agents' })).statusCode).toBe(401);
    expect((await fromAddress(address, { url: '/api/v1/agents' })).statusCode).toBe(429);

    const listed = await fromAddress(address, { url: '/api/v1/auth/me', headers: { authorization: `Bearer ${tenant.runtimeKey.apiKey}` } });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.headers['x-ratelimit-limit']).toBe('1000000');
  });

  it('count tries of a mailed confirmation token, so that none can be guessed at speed', async () => {
    stopInWindow(clock, 0);
    const tryToken = () =>
      fromAddress('198.51.100.5', { method: 'POST', url: '/api/v1/email-confirmations', payload: { token: 'guessed' } });
    for (let i = 0; i < PER_ADDRESS; i += 1) {
      expectErrorBody(await tryToken(), 404, { error: 'not_found', message: 'This confirmation link is not valid or was already used' });
    }
    expect((await tryToken()).statusCode).toBe(429);
  });

  it('ignore X-Forwarded-For unless TRUST_PROXY is set: a client cannot pick a fresh address per request', async () => {
    stopInWindow(clock, 0);
    for (let i = 0; i <= PER_ADDRESS; i += 1) {
      const response = await fromAddress('198.51.100.3', { url: '/api/v1/agents', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      expect(response.statusCode).toBe(i < PER_ADDRESS ? 401 : 429);
    }
  });

  it('are counted by the forwarded address behind a trusted proxy', async () => {
    const proxied = await createTestApp({ clock, env: { RATE_LIMIT_UNAUTHENTICATED: String(PER_ADDRESS), TRUST_PROXY: '127.0.0.1' } });
    try {
      stopInWindow(clock, 0);
      const via = (client: string) =>
        proxied.app.inject({ method: 'GET', url: '/api/v1/agents', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client } });
      for (let i = 0; i < PER_ADDRESS; i += 1) expect((await via('203.0.113.10')).statusCode).toBe(401);
      expect((await via('203.0.113.10')).statusCode).toBe(429);
      const other = await via('203.0.113.11');
      expect(other.statusCode).toBe(401);
      expect(other.headers['x-ratelimit-remaining']).toBe(String(PER_ADDRESS - 1));
    } finally {
      await proxied.close();
    }
  });
});

describe('GET /health', () => {
  it("is never counted nor refused, and shows where the caller's address stands", async () => {
    const address = '198.51.100.4';
    const start = stopInWindow(clock, 0);
    for (let i = 0; i < 2 * PER_ADDRESS; i += 1) {
      const probe = await fromAddress(address, { url: '/health' });
      expect(probe.statusCode).toBe(200);
      expect(probe.json()).toEqual({ status: 'ok' });
      expectLimitHeaders(probe, PER_ADDRESS, PER_ADDRESS, start);
    }
    expect((await fromAddress(address, { url: '/api/v1/agents' })).statusCode).toBe(401);
    expectLimitHeaders(await fromAddress(address, { url: '/health' }), PER_ADDRESS, PER_ADDRESS - 1, start + 2 * WINDOW_MS);
  });
});

describe('a plan change', () => {
  it("applies the new plan's limits at once, in every instance", async () => {
    const env = { RATE_LIMIT_READ: '' };
    const a = await createTestApp({ env });
    const b = await createTestApp({ env });
    try {
      const tenant = await signupTenant(a.app);
      const readLimit = async (app: TestApp) =>
        (await request(app.app, tenant.runtimeKey, { method: 'GET', url: '/api/v1/agents' })).headers['x-ratelimit-limit'];
      expect([await readLimit(a), await readLimit(b)]).toEqual(['600', '600']);

      // What billing does when a subscription changes: the update and its invalidation commit together.
      await commitInvalidation(a.runtime.database, { kind: 'tenant_plan', id: tenant.tenantId }, (tx) =>
        tx.execute(sql`update subscriptions set plan = 'business' where tenant_id = ${tenant.tenantId}`),
      );

      // Neither instance applied it at commit: both must hear of it before their next request.
      expect([await readLimit(a), await readLimit(b)]).toEqual(['60000', '60000']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
