import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { action, createAgent, createPolicy } from './fixtures.js';
import { type Credential, keyWithScopes, request, signupTenant, uniqueEmail, useTestApp } from './harness.js';

/**
 * Every route of the OpenAPI document, sent generated requests — hostile ids, query strings
 * and bodies — as each kind of caller. Whatever arrives, the answer is never a 5xx, and every
 * 4xx carries the error body. fast-check prints the seed and the shrunk request on failure.
 */

type JsonSchema = {
  type?: string;
  format?: string;
  enum?: unknown[];
  minLength?: number;
  minItems?: number;
  minimum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};
interface Parameter {
  in: 'path' | 'query';
  name: string;
  schema: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
}
interface Route {
  method: string;
  path: string;
  operation: Operation;
}

/** `npm run fuzz` raises these for a long run; `FUZZ_SEED` replays one. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
/** argon2 makes these slow, and each signup makes a tenant: a handful is enough. */
const SLOW_ROUTES = new Set(['POST /api/v1/auth/signup', 'POST /api/v1/auth/login']);
const SLOW_RUNS = 4;

const t = useTestApp();
let routes: Route[];
let callers: { name: string; credential: Credential }[];
/** Ids that exist in the tenant; the admin's own key and user are left out so the run keeps its credentials. */
let knownIds: string[];

beforeAll(async () => {
  const tenant = await signupTenant(t.app);
  const adminKey = await keyWithScopes(t.app, tenant, ['admin']);
  callers = [
    { name: 'admin session', credential: tenant.admin },
    { name: 'admin API key', credential: { apiKey: adminKey.apiKey } },
    { name: 'no credential', credential: null },
  ];
  const agent = await createAgent(t.app, tenant.admin);
  const policy = await createPolicy(t.app, tenant.admin, agent.id);
  const evaluated = await request(t.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agent.id) });
  knownIds = [agent.id, policy.id, evaluated.json().trace_id];

  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, Operation>>;
  };
  routes = Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}, 120_000);

// --- generators -------------------------------------------------------------------------------

/** Any UTF-16 code unit, lone surrogates and NUL included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    'a\u0000b',
    'x\ud800',
    '\udc00y',
    `urn:uuid:${randomUUID()}`,
    '2026-12-31T23:59:60Z',
    '2026-01-01T00:00:00+01',
    '10000-01-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '0001-01-01',
    '-1',
    '1e400',
    '99999999999999999999',
    '__proto__',
    '*',
    '%',
    'x'.repeat(3000),
  ),
  fc.string({ unit: anyUnit, maxLength: 12 }),
  fc.string({ maxLength: 12 }),
);
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    true,
    -1,
    2 ** 31,
    Number.MAX_SAFE_INTEGER,
    1.5,
    [],
    {},
    { __proto__: null, constructor: { prototype: {} } },
    JSON.parse(`{"a":${'['.repeat(40)}${']'.repeat(40)}}`),
  ),
);

const pathValue = () =>
  fc.oneof(
    fc.uuid(),
    fc.constantFrom(...knownIds),
    fc.uuid().map((id) => `urn:uuid:${id}`),
    fc.uuid().map((id) => `{${id}}`),
    fc.uuid().map((id) => id.replaceAll('-', '')),
    hostileText,
  );

/** A valid value for a schema, as far as one can be made without knowing the route. */
function sample(schema: JsonSchema): unknown {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return sample({ ...schema, anyOf: undefined, oneOf: undefined, ...(branches.find((b) => b.type !== 'null') ?? {}) });
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, sampleField(name, property)]));
    case 'array':
      return schema.minItems && schema.items ? [sample(schema.items)] : [];
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
  }
  if (schema.format === 'uuid') return knownIds[0];
  if (schema.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
  if (schema.format === 'date') return '2030-01-31';
  if (schema.format === 'email') return uniqueEmail('fuzz');
  return 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
}

function sampleField(name: string, schema: JsonSchema): unknown {
  if (name === 'url') return 'https://127.0.0.1:9/hook';
  if (name === 'password') return 'correct horse battery staple';
  return sample(schema);
}

/** The route's own body, valid as far as `sample` knows, then changed in up to two places. */
function mutatedBody(schema: JsonSchema): fc.Arbitrary<unknown> {
  const valid = () => sample(schema) as Record<string, unknown>;
  const names = Object.keys(schema.properties ?? {});
  const mutation = fc.record({
    field: names.length > 0 ? fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
    value: fc.option(hostileJson, { nil: undefined }),
  });
  return fc.array(mutation, { minLength: 0, maxLength: 2 }).map((changes) => {
    const body = valid();
    for (const { field, value } of changes) {
      if (value === undefined) delete body[field];
      else body[field] = value;
    }
    return body;
  });
}

function bodyFor(operation: Operation): fc.Arbitrary<unknown> {
  const schema = operation.requestBody?.content['application/json'].schema;
  const random = fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), hostileJson, { maxKeys: 4 }), hostileJson);
  return schema
    ? fc.oneof({ arbitrary: mutatedBody(schema), weight: 3 }, { arbitrary: random, weight: 1 })
    : fc.oneof(fc.constant(undefined), random);
}

function queryFor(operation: Operation): fc.Arbitrary<[string, string][]> {
  const names = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const name = names.length > 0 ? fc.oneof(fc.constantFrom(...names), hostileText) : hostileText;
  return fc.array(fc.tuple(name, hostileText), { maxLength: 3 });
}

/**
 * Percent-encodes any string, lone surrogates included (as the three bytes WTF-8 gives them),
 * which `encodeURIComponent` refuses to do.
 */
function encode(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

// --- the property -----------------------------------------------------------------------------

/** The one 5xx the spec defines for a client's request: this install has no payment provider. */
const isBillingNotConfigured = (response: LightMyRequestResponse) =>
  response.statusCode === 501 && response.json().error === 'billing_not_configured';

function expectWellFormed(response: LightMyRequestResponse, label: string) {
  if (!isBillingNotConfigured(response))
    expect(response.statusCode, `${label} → ${response.statusCode} ${response.body.slice(0, 500)}`).toBeLessThan(500);
  if (response.statusCode >= 400) {
    const body = response.json();
    expect(body, label).toMatchObject({
      error: expect.any(String),
      message: expect.any(String),
      status: response.statusCode,
      request_id: expect.any(String),
    });
  }
}

/** Requests that would end the run's own session; the admin key and user are never in `knownIds`. */
const keepsCredentials = (route: Route, caller: { name: string }) =>
  !(route.method === 'POST' && route.path === '/api/v1/auth/logout' && caller.name === 'admin session');

describe('fuzzing every route of the OpenAPI document', () => {
  it('never answers 5xx, and every 4xx has the error body', { timeout: 120_000 + RUNS * 3_000 }, async () => {
    console.log(`fuzz: ${RUNS} runs per route, seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const input = fc.record({
        caller: fc.constantFrom(...callers.filter((caller) => keepsCredentials(route, caller))),
        params: fc.tuple(...pathNames.map(() => pathValue())),
        query: queryFor(route.operation),
        body: bodyFor(route.operation),
      });
      await fc.assert(
        fc.asyncProperty(input, async ({ caller, params, query, body }) => {
          let url = route.path;
          pathNames.forEach((name, i) => {
            url = url.replace(`{${name}}`, encode(String(params[i])));
          });
          if (query.length > 0) url += `?${query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`;
          const response = await request(t.app, caller.credential, {
            method: route.method as 'GET',
            url,
            ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }),
          });
          expectWellFormed(response, `${caller.name}: ${route.method} ${url}`);
        }),
        { numRuns: SLOW_ROUTES.has(key) ? SLOW_RUNS : RUNS, seed: SEED },
      );
    }
  });
});
