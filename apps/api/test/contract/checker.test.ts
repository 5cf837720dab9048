import { describe, expect, it } from 'vitest';
import { ContractChecker, type Exchange } from './checker.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A tiny OpenAPI 3.1 document: one resource, a named schema, a shared error response, declared headers. */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'tiny', version: '1.0.0' },
  paths: {
    '/api/v1/things/{id}': {
      get: {
        responses: {
          200: {
            description: 'The thing',
            headers: {
              'X-Request-Id': { required: true, schema: { type: 'string' } },
              'X-RateLimit-Remaining': { $ref: '#/components/headers/Remaining' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingBody' } } },
          },
          404: { $ref: '#/components/responses/Error' },
        },
      },
      delete: { responses: { 204: { description: 'Deleted' } } },
    },
    '/api/v1/things/export': {
      get: { responses: { 200: { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } } } },
    },
    '/api/v1/legacy': {
      get: { responses: { 200: { description: 'OK' }, default: { $ref: '#/components/responses/Error' } } },
    },
  },
  webhooks: {
    'thing.made': {
      post: {
        parameters: [{ name: 'X-Webhook-Signature', in: 'header', required: true, schema: { type: 'string' } }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['event', 'data'],
                properties: { event: { const: 'thing.made' }, data: { $ref: '#/components/schemas/ThingBody' } },
              },
            },
          },
        },
        responses: { 200: { description: 'Received' } },
      },
    },
  },
  components: {
    headers: { Remaining: { required: false, schema: { type: 'integer', minimum: 0 } } },
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'name', 'metadata'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          name: { type: 'string' },
          metadata: { type: ['object', 'null'], additionalProperties: true },
        },
      },
      ThingBody: { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/Thing' } } },
      Error: {
        type: 'object',
        required: ['error', 'message', 'status', 'request_id'],
        properties: { error: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' }, request_id: { type: 'string' } },
      },
    },
    responses: {
      Error: { description: 'An error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  },
};

const ID = '0b7c6f4e-8a51-4f0e-9d43-5d7f3c1b2a90';
const THING = { id: ID, name: 'lamp', metadata: { nested: { any: [1, 'two'] } } };

function exchange(overrides: Partial<Exchange> & { json?: unknown }): Exchange {
  const { json, ...rest } = overrides;
  return {
    method: 'GET',
    url: `/api/v1/things/${ID}`,
    status: 200,
    headers: { 'content-type': JSON_TYPE, 'x-request-id': 'req-1' },
    body: JSON.stringify(json ?? { data: THING }),
    ...rest,
  };
}

describe('the contract checker', () => {
  const checker = new ContractChecker(DOCUMENT);

  it('passes a response as the document describes it, $refs and free-form objects included', () => {
    expect(checker.check(exchange({}))).toEqual([]);
    expect(checker.check(exchange({ headers: { 'content-type': JSON_TYPE, 'x-request-id': 'r', 'x-ratelimit-remaining': '7' } }))).toEqual(
      [],
    );
    expect(checker.check(exchange({ method: 'DELETE', status: 204, headers: {}, body: '' }))).toEqual([]);
    const notFound = { error: 'not_found', message: 'Thing not found', status: 404, request_id: 'r' };
    expect(checker.check(exchange({ status: 404, json: notFound }))).toEqual([]);
  });

  it('names an undeclared status with the ones the operation declares', () => {
    expect(checker.check(exchange({ status: 409, json: {} }))).toEqual([
      `GET /api/v1/things/${ID} → 409: status 409 is not declared for GET /api/v1/things/{id} (declared: 200, 404)`,
    ]);
  });

  it('lets `default` stand for a fault only, never for an answer below 500', () => {
    const error = (status: number) => ({ error: 'x', message: 'No', status, request_id: 'r' });
    expect(checker.check(exchange({ url: '/api/v1/legacy', status: 500, json: error(500) }))).toEqual([]);
    expect(checker.check(exchange({ url: '/api/v1/legacy', status: 403, json: error(403) }))).toEqual([
      'GET /api/v1/legacy → 403: status 403 is not declared for GET /api/v1/legacy (declared: 200, default)',
    ]);
    expect(checker.check(exchange({ url: '/api/v1/legacy', status: 503, json: { error: 'service_unavailable' } }))).toEqual([
      "GET /api/v1/legacy → 503: body: / must have required property 'message'; / must have required property 'status'; / must have required property 'request_id'",
    ]);
  });

  it('names a missing required header and an invalid declared one', () => {
    expect(checker.check(exchange({ headers: { 'content-type': JSON_TYPE } }))).toEqual([
      `GET /api/v1/things/${ID} → 200: header X-Request-Id is missing; the document declares it required`,
    ]);
    expect(
      checker.check(exchange({ headers: { 'content-type': JSON_TYPE, 'x-request-id': 'r', 'x-ratelimit-remaining': 'many' } })),
    ).toEqual([`GET /api/v1/things/${ID} → 200: header X-RateLimit-Remaining: must be integer`]);
  });

  it('names a wrong body field by its place in the body', () => {
    expect(checker.check(exchange({ json: { data: { ...THING, name: 7 } } }))).toEqual([
      `GET /api/v1/things/${ID} → 200: body: /data/name must be string`,
    ]);
    expect(checker.check(exchange({ json: { data: { ...THING, colour: 'red' } } }))).toEqual([
      `GET /api/v1/things/${ID} → 200: body: /data must NOT have additional properties (colour)`,
    ]);
  });

  it('checks a body that is not JSON for its content type only', () => {
    const csv = { url: '/api/v1/things/export?from=2026-01-01', body: 'id,name\n1,lamp\n' };
    expect(checker.check(exchange({ ...csv, headers: { 'content-type': 'text/csv; charset=utf-8' } }))).toEqual([]);
    expect(checker.check(exchange({ ...csv, headers: { 'content-type': 'text/plain' } }))).toEqual([
      'GET /api/v1/things/export?from=2026-01-01 → 200: content type text/plain is not declared for status 200 (declared: text/csv)',
    ]);
    expect(checker.check(exchange({ url: '/api/v1/legacy' }))).toEqual([
      'GET /api/v1/legacy → 200: content type application/json is not declared for status 200 (declared: no body)',
    ]);
  });

  it('matches an empty parameter, as the router does, and ignores a trailing slash otherwise', () => {
    expect(checker.check(exchange({ method: 'DELETE', url: '/api/v1/things/', status: 204, headers: {}, body: '' }))).toEqual([]);
    expect(checker.check(exchange({ url: '/api/v1/things/export/', headers: { 'content-type': 'text/csv' }, body: 'id\n' }))).toEqual([]);
  });

  it("matches a literal segment before a parameter, and a HEAD against the GET's answer", () => {
    expect(checker.check(exchange({ url: '/api/v1/things/export', headers: {}, body: '' }))).toEqual([
      'GET /api/v1/things/export → 200: no body, where the document declares text/csv',
    ]);
    expect(checker.check(exchange({ method: 'HEAD', body: '' }))).toEqual([]);
  });

  it('requires the not-found error for what the document does not describe, and skips what is not an operation', () => {
    const notFound = { error: 'not_found', message: 'Route PUT /api/v1/things not found', status: 404, request_id: 'r' };
    expect(checker.check(exchange({ method: 'PUT', url: '/api/v1/things', status: 404, json: notFound }))).toEqual([]);
    expect(checker.check(exchange({ method: 'POST', url: '/api/v1/hidden', status: 200, json: {} }))).toEqual([
      'POST /api/v1/hidden → 200: no operation in the document for POST /api/v1/hidden',
    ]);
    for (const url of ['/openapi.json', '/docs', '/docs/static/index.css', '/', '/assets/app.js', '/agents/1']) {
      expect(checker.check(exchange({ url, headers: { 'content-type': 'text/html' }, body: '<html>' }))).toEqual([]);
    }
  });

  it('checks a delivered webhook: a documented event, the required headers, the body', () => {
    const signed = { 'x-webhook-signature': 'sha256=ab' };
    const made = (data: unknown) => JSON.stringify({ event: 'thing.made', data });
    expect(checker.checkDelivery({ headers: signed, body: made({ data: THING }) })).toEqual([]);
    expect(checker.checkDelivery({ headers: {}, body: made({ data: { ...THING, colour: 'red' } }) })).toEqual([
      'webhook thing.made: header X-Webhook-Signature is missing',
      'webhook thing.made: body: /data/data must NOT have additional properties (colour)',
    ]);
    expect(checker.checkDelivery({ headers: signed, body: JSON.stringify({ event: 'thing.lost', data: {} }) })).toEqual([
      'webhook thing.lost: no such webhook in the document',
    ]);
  });
});
