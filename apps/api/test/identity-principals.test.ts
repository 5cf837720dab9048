import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, principalOfApiKey, principalOfSession } from '@agov/domain';
import { createTestApp, keyWithScopes, signupTenant, type TestApp } from './harness.js';

// The domain's identity functions called as a process without HTTP (the MCP gateway) will
// call them: the auth plugin's tests cover the same paths through headers and cookies.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const refusal = (message: string) => ({ code: 'unauthorized', status: 401, message });

describe('principalOfApiKey', () => {
  it('names the tenant and the key, with its scopes', async () => {
    const tenant = await signupTenant(t.app);
    const key = await keyWithScopes(t.app, tenant, ['agents:read', 'traces:read']);

    expect(await principalOfApiKey(t.runtime.deps, key.apiKey)).toEqual({
      kind: 'api_key',
      tenantId: tenant.tenantId,
      keyId: key.id,
      keyName: key.name,
      keyPrefix: key.prefix,
      scopes: ['agents:read', 'traces:read'],
    });
  });

  it.each([
    ['no key', undefined],
    ['a malformed key', 'not-a-key'],
    ['an unknown key', `ai_${'0'.repeat(64)}`],
  ])('refuses %s with the one 401 every bad key gets', async (_case, presented) => {
    const refused = principalOfApiKey(t.runtime.deps, presented);
    await expect(refused).rejects.toBeInstanceOf(AppError);
    await expect(refused).rejects.toMatchObject(refusal('Invalid, expired or revoked API key'));
  });
});

describe('principalOfSession', () => {
  it('refuses a token no session has with 401', async () => {
    const refused = principalOfSession(t.runtime.deps, 'no-such-session');
    await expect(refused).rejects.toBeInstanceOf(AppError);
    await expect(refused).rejects.toMatchObject(refusal('Session expired or signed out'));
  });
});
