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

/** The fields a validation error names. */
export const fieldsOf = (response: { json(): { details: { fields: { field: string }[] } } }) =>
  response.json().details.fields.map((f) => f.field);

export function expectError(response: { statusCode: number; json(): unknown }, status: number, error: string) {
  expect(response.statusCode).toBe(status);
  expect(response.json()).toMatchObject({ error, status, message: expect.any(String), request_id: expect.any(String) });
}

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

/** A 400 `validation_error` body naming each field with its problem. */
export function expectValidationError(
  response: { statusCode: number; body: string; json(): unknown },
  message: string,
  fields: { field: string; message: string }[],
) {
  expectErrorBody(response, 400, { error: 'validation_error', message, details: { fields } });
}

/**
 * The 400 a schema failure of the request body answers: each `[field, problem]` in `details.fields`,
 * and the message that lists them, as the error handler writes it.
 */
export function expectInvalidBody(
  response: { statusCode: number; body: string; json(): unknown },
  problems: readonly (readonly [string, string])[],
) {
  const fields = problems.map(([field, message]) => ({ field, message }));
  expectValidationError(response, `Invalid body: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}`, fields);
}
