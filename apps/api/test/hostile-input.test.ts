import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, expectInvalidBody, expectInvalidQuery, MALFORMED_ID } from './assertions.js';
import { client } from './client.js';
import { action, agentBody, createAgent, policyBody } from './fixtures.js';
import { useTestApp, request, signupTenant, type Tenant } from './harness.js';

/**
 * Input that passes a lax reading of the schema but that PostgreSQL or `Date` refuses: each
 * must be a 400 (or a 404 for an id in the path) naming the field, never a 500.
 */
let tenant: Tenant;
let agentId: string;
const t = useTestApp();
const api = client(t);
beforeAll(async () => {
  tenant = await signupTenant(t.app);
  agentId = (await createAgent(t.app, tenant.admin)).id;
});

/** A body sent as this exact JSON text, so escapes such as `\ud800` reach the server unchanged. */
const postRaw = (url: string, json: string, credential: { cookie: string } | { apiKey: string } = tenant.admin) =>
  request(t.app, credential, { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: json });

describe('ids in the urn:uuid form', () => {
  const urn = () => `urn:uuid:${randomUUID()}`;

  it.each([
    ['/api/v1/agents/:id', () => api.get(tenant.admin, `/api/v1/agents/${urn()}`)],
    ['/api/v1/policies/:id', () => api.get(tenant.admin, `/api/v1/policies/${urn()}`)],
    ['/api/v1/traces/:traceId', () => api.get(tenant.admin, `/api/v1/traces/${urn()}`)],
    ['/api/v1/api-keys/:id (DELETE)', () => api.delete(tenant.admin, `/api/v1/api-keys/${urn()}`)],
  ])('in the path of %s are not found', async (_route, send) => {
    expectErrorBody(await send(), 404, MALFORMED_ID);
  });

  it.each(['/api/v1/policies', '/api/v1/traces', '/api/v1/approvals'])('in ?agent_id= of %s are a validation error', async (path) => {
    const response = await api.get(tenant.admin, `${path}?agent_id=${urn()}`);
    expectInvalidQuery(response, [['agent_id', 'must match format "uuid"']]);
  });

  it('in a body are a validation error naming the field', async () => {
    const response = await api.post(tenant.admin, '/api/v1/policies', policyBody(urn()));
    expectInvalidBody(response, [['agent_id', 'must match format "uuid"']]);
  });
});

describe('paths the router cannot read', () => {
  const longUrl = `/api/v1/agents/${'a'.repeat(200)}`;
  it.each([
    ['not valid UTF-8 once decoded (a lone surrogate)', '/api/v1/agents/%ED%A0%80', MALFORMED_ID],
    ['a bad percent-escape', '/api/v1/agents/%E0%A4%A', MALFORMED_ID],
    // The router matches no route, as for any unknown path.
    ['a parameter longer than the router takes', longUrl, { error: 'not_found', message: `Route GET ${longUrl} not found` }],
  ])('answers %s with 404 in the error shape, with the request id', async (_label, url, body) => {
    const response = await api.get(tenant.admin, url);
    expectErrorBody(response, 404, body);
    expect(response.headers['x-request-id']).toBe(response.json().request_id);
  });
});

describe('date-times that name no storable instant', () => {
  const times = [
    ['a leap second', '2026-12-31T23:59:60Z'],
    ['an hour-only offset', '2026-06-01T10:00:00+01'],
    ['year 10000', '10000-01-01T00:00:00Z'],
    ['an expanded year', '+010000-01-01T00:00:00Z'],
    ['30 February', '2026-02-30T00:00:00Z'],
    ['year 0000', '0000-06-01T00:00:00Z'],
    // Stored, these would read back as 1950–2049 (the driver parses PostgreSQL's text with `new Date`).
    ['year 0001', '0001-01-01T00:00:00Z'],
    ['year 0099', '0099-12-31T23:59:59.999Z'],
    ['a 9999 time whose offset carries it past 9999 in UTC', '9999-12-31T23:30:00-01:00'],
    ['hour 24', '2026-06-01T24:00:00Z'],
  ];

  it.each(times)('in expires_at of POST /api-keys (%s) are a validation error naming it', async (_label, time) => {
    const response = await api.post(tenant.admin, '/api/v1/api-keys', { name: 'k', scopes: ['agents:read'], expires_at: time });
    expectInvalidBody(response, [
      ['expires_at', 'must match format "date-time"'],
      ['expires_at', 'must be null'],
      ['expires_at', 'must match a schema in anyOf'],
    ]);
  });

  it.each(times)('in modified_at of POST /agents and /policies (%s) are a validation error naming it', async (_label, time) => {
    const agent = await api.post(tenant.admin, '/api/v1/agents', agentBody({ modified_at: time }));
    expectInvalidBody(agent, [['modified_at', 'must match format "date-time"']]);
    const policy = await api.post(tenant.admin, '/api/v1/policies', policyBody(agentId, { modified_at: time }));
    expectInvalidBody(policy, [['modified_at', 'must match format "date-time"']]);
  });

  it('still accepts offsets, fractions and the edges of the range', async () => {
    for (const time of ['2026-06-01T10:00:00+01:00', '2026-06-01T10:00:00.123456Z', '0100-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z']) {
      const response = await api.post(tenant.admin, '/api/v1/agents', agentBody({ modified_at: time }));
      expect(response.statusCode, `${time}: ${response.body}`).toBe(201);
      expect(response.json().data.modified_at).toBe(new Date(time).toISOString());
    }
  });
});

describe('NUL in a query string', () => {
  it.each([
    ['/api/v1/agents?search=a%00b', 'search'],
    ['/api/v1/policies?search=%00', 'search'],
  ])('%s is a validation error naming the parameter', async (url, field) => {
    const response = await api.get(tenant.admin, url);
    expectInvalidQuery(response, [[field, 'must not contain the NUL character (\\u0000)']]);
  });
});

describe('lone UTF-16 surrogates in a body', () => {
  const agentJson = (overrides: Record<string, string>) => {
    let json = JSON.stringify(agentBody());
    for (const [field, raw] of Object.entries(overrides)) {
      json = json.replace(new RegExp(`"${field}":(null|"[^"]*"|\\{[^}]*\\})`), `"${field}":${raw}`);
    }
    return json;
  };

  it.each([
    ['name', { name: '"x\\ud800"' }, 'name', 'must not contain an unpaired UTF-16 surrogate'],
    ['description', { description: '"\\udc00 trailing"' }, 'description', 'must not contain an unpaired UTF-16 surrogate'],
    [
      'a metadata value, nested',
      { metadata: '{"a":{"b":["ok","x\\udbff"]}}' },
      'metadata.a.b.1',
      'must not contain an unpaired UTF-16 surrogate',
    ],
    ['a metadata key', { metadata: '{"k\\ud800":1}' }, 'metadata', 'must not have a key containing an unpaired UTF-16 surrogate'],
  ])('in an agent %s are a validation error naming the field', async (_label, overrides, field, problem) => {
    const response = await postRaw('/api/v1/agents', agentJson(overrides));
    expectInvalidBody(response, [[field, problem]]);
  });

  it('in evaluate context are a validation error naming the field', async () => {
    const body = JSON.stringify(action(agentId)).replace(/}$/, ',"context":{"user":"\\ud83d"}}');
    const response = await postRaw('/api/v1/evaluate', body, tenant.runtimeKey);
    expectInvalidBody(response, [['context.user', 'must not contain an unpaired UTF-16 surrogate']]);
  });

  it('are accepted when paired', async () => {
    const response = await postRaw('/api/v1/agents', agentJson({ name: '"bot \\ud83d\\ude00"' }));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data.name).toBe('bot 😀');
  });
});

describe('free-form JSON nested far too deep', () => {
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it.each([
    // An array is not an object either, and says so too.
    ['an array', (levels: number) => deep(levels), [['context', 'must be object']]],
    ['an object', (levels: number) => `{"a":${deep(levels)}}`, []],
  ] as const)('in evaluate context (%s, 300 000 levels) is a validation error naming it', async (_label, context, after) => {
    const body = JSON.stringify(action(agentId)).replace(/}$/, `,"context":${context(300_000)}}`);
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    const response = await postRaw('/api/v1/evaluate', body, tenant.runtimeKey);
    expectInvalidBody(response, [['context', 'must be at most 32 levels deep'], ...after]);
  });

  it('stops at the limit: 32 levels pass, 33 do not', async () => {
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    const ok = await postRaw('/api/v1/agents', agentJson(nested(32)));
    expect(ok.statusCode, ok.body).toBe(201);
    const tooDeep = await postRaw('/api/v1/agents', agentJson(nested(33)));
    expectInvalidBody(tooDeep, [
      ['metadata', 'must be at most 32 levels deep'],
      ['metadata', 'must be null'],
      ['metadata', 'must match a schema in anyOf'],
    ]);
  });

  function agentJson(metadata: string) {
    return JSON.stringify(agentBody({ metadata: null })).replace('"metadata":null', `"metadata":${metadata}`);
  }
});
