import { describe, expect, it } from 'vitest';
import { client } from './client.js';
import { useTestApp, request, signupTenant } from './harness.js';

const t = useTestApp();
const api = client(t);

describe('error bodies', () => {
  it('answers an unknown route with 404 in the spec shape, echoing the request id', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    const body = response.json();
    expect(body).toEqual({
      error: 'not_found',
      message: 'Route GET /api/v1/nothing-here not found',
      status: 404,
      request_id: expect.any(String),
    });
    expect(response.headers['x-request-id']).toBe(body.request_id);
  });

  it('keeps a safe caller-supplied request id and replaces an unsafe one', async () => {
    const kept = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'req-123.abc' } });
    expect(kept.headers['x-request-id']).toBe('req-123.abc');
    const replaced = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': '<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['malformed JSON', 'application/json', '{"name": '],
    ['a body that is not JSON', 'text/plain', 'name=x'],
    ['a NUL character anywhere in a body', 'application/json', '{"name": "a\\u0000b", "scopes": ["admin"]}'],
    ['a prototype pollution attempt', 'application/json', '{"name": "k", "scopes": ["admin"], "__proto__": {"admin": true}}'],
  ])('rejects %s with 400', async (_label, contentType, payload) => {
    const tenant = await signupTenant(t.app);
    const response = await request(t.app, tenant.admin, {
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { 'content-type': contentType },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'validation_error', status: 400, request_id: expect.any(String) });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const tenant = await signupTenant(t.app);
    const response = await api.post(tenant.admin, '/api/v1/api-keys', { name: 'x'.repeat(1_100_000), scopes: ['admin'] });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ error: 'payload_too_large', status: 413, request_id: expect.any(String) });
  });

  it('treats a malformed id as a resource that does not exist', async () => {
    const tenant = await signupTenant(t.app);
    const response = await api.delete(tenant.admin, '/api/v1/api-keys/not-a-uuid');
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toBe('not_found');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['limit=ten', 'limit'],
  ])('rejects %s with 400', async (query, field) => {
    const tenant = await signupTenant(t.app);
    const response = await api.get(tenant.admin, `/api/v1/api-keys?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().details.fields[0].field).toBe(field);
  });

  it('never lets responses be cached', async () => {
    const tenant = await signupTenant(t.app);
    const response = await api.get(tenant.admin, '/api/v1/api-keys');
    expect(response.headers['cache-control']).toBe('no-store');
  });
});
