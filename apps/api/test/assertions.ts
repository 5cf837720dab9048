import { expect, onTestFinished } from 'vitest';
import type { TestApp, TestClock } from './harness.js';

/** The list order: created_at descending, then id descending. */
export const newestFirst = (a: { created_at?: unknown; id: string }, b: { created_at?: unknown; id: string }) =>
  String(b.created_at) < String(a.created_at)
    ? -1
    : String(b.created_at) > String(a.created_at)
      ? 1
      : b.id < a.id
        ? -1
        : b.id > a.id
          ? 1
          : 0;

/** Puts a stale entry in the decision-input cache, to show a change evicts it. */
export function cacheEntryFor(t: TestApp, agentId: string) {
  const cache = t.runtime.deps.caches.decisionInputs;
  cache.set(agentId, {} as never, cache.ticket());
  expect(cache.get(agentId)).toBeDefined();
  return () => cache.get(agentId);
}

/** Stops `clock` until the current test ends, so the time the server stamps is known: the returned instant. */
export function stopUntilTestEnds(clock: TestClock): Date {
  const at = clock.stop();
  onTestFinished(() => clock.resume());
  return at;
}

/** A timestamp as the API writes it: ISO 8601 in UTC with milliseconds. */
export const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** The error body the spec defines, compared whole: only `request_id` is left open. */
export function expectErrorBody(
  response: { statusCode: number; body: string; json(): unknown },
  status: number,
  body: { error: string; message: string; details?: Record<string, unknown>; trace_id?: string },
) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toEqual({ ...body, status, request_id: expect.any(String) });
}

/** The 401 of a request without credentials. */
export const UNAUTHENTICATED = {
  error: 'unauthorized',
  message: 'Authentication required: send Authorization: Bearer <API key> or sign in',
} as const;

/** The 403 of a credential that lacks the scope or role a route needs. */
/**
 * The 403 of a credential without the scope or role a route needs. Its details name what was
 * needed and what the credential has; access-table.test.ts asserts them for every route.
 */
export const FORBIDDEN = {
  error: 'forbidden',
  message: 'This credential may not perform this action',
  details: expect.any(Object) as Record<string, unknown>,
} as const;

/** The 404 of an id, well formed, that names no `resource` of the caller's tenant (another tenant's included). */
export const notFound = (resource: string) => ({ error: 'not_found', message: `${resource} not found` });

/** The 404 of a path id that is not a UUID: no resource could have it. */
export const MALFORMED_ID = { error: 'not_found', message: 'Resource not found' } as const;

/** An error body as `expectErrorBody` compares it; it adds `status` and an open `request_id`. */
export type ErrorBody = Parameters<typeof expectErrorBody>[2];

/** The schema's words for a value outside an enumeration. */
export const ONE_OF = 'must be equal to one of the allowed values';

/** The schema's problems with a nullable field whose value fails its non-null form with `problem`. */
export const nullableFailure = (field: string, problem: string) =>
  [
    [field, problem],
    [field, 'must be null'],
    [field, 'must match a schema in anyOf'],
  ] as const;

/** A 400 `validation_error` body naming each field with its problem. */
export function expectValidationError(
  response: { statusCode: number; body: string; json(): unknown },
  message: string,
  fields: { field: string; message: string }[],
) {
  expectErrorBody(response, 400, { error: 'validation_error', message, details: { fields } });
}

/** The body of the 400 a schema failure of `part` answers: each `[field, problem]`, and the message listing them. */
function schemaFailure(part: 'body' | 'querystring', problems: readonly (readonly [string, string])[]) {
  const fields = problems.map(([field, message]) => ({ field, message }));
  return {
    error: 'validation_error',
    message: `Invalid ${part}: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`,
    details: { fields },
  };
}

/** The body of the 400 a schema failure of the request body answers, as the error handler writes it. */
export const invalidBody = (problems: readonly (readonly [string, string])[]) => schemaFailure('body', problems);

/** The body of the 400 a schema failure of the query string answers. */
export const invalidQuery = (problems: readonly (readonly [string, string])[]) => schemaFailure('querystring', problems);

/**
 * The 400 a schema failure of the request body answers: each `[field, problem]` in `details.fields`,
 * and the message that lists them, as the error handler writes it.
 */
export function expectInvalidBody(
  response: { statusCode: number; body: string; json(): unknown },
  problems: readonly (readonly [string, string])[],
) {
  expectErrorBody(response, 400, invalidBody(problems));
}

/** The 400 a schema failure of the query string answers, as `expectInvalidBody` for the body. */
export function expectInvalidQuery(
  response: { statusCode: number; body: string; json(): unknown },
  problems: readonly (readonly [string, string])[],
) {
  expectErrorBody(response, 400, invalidQuery(problems));
}
