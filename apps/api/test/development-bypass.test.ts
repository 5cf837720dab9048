import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';

const bypass = { 'x-dev-bypass': 'true' };

describe('X-Dev-Bypass in development', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { NODE_ENV: 'development' } });
  });
  afterAll(() => t.close());

  it('acts as an admin of the Development tenant, created on first use', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bypass });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ tenant: { name: 'Development' }, role: 'admin', user: null });
    const second = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: bypass });
    expect(second.statusCode).toBe(200);
    const again = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bypass });
    expect(again.json().data.tenant.id).toBe(first.json().data.tenant.id);
  });
});

describe.each(['production', 'test'])('X-Dev-Bypass when NODE_ENV is %s', (mode) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { NODE_ENV: mode } });
  });
  afterAll(() => t.close());

  it('is ignored', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: bypass });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('unauthorized');
  });
});
