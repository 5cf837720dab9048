import { expect } from 'vitest';
import type { TestApp } from './harness.js';

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
  const cache = t.runtime.deps.decisionInputs;
  cache.set(agentId, {} as never, cache.ticket());
  expect(cache.get(agentId)).toBeDefined();
  return () => cache.get(agentId);
}

/** A timestamp as the API writes it: ISO 8601 in UTC with milliseconds. */
export const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
