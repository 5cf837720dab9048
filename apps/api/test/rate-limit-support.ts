import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { stopUntilTestEnds } from './assertions.js';
import type { TestClock } from './harness.js';

export const WINDOW_MS = 60_000;

/**
 * Stops `clock` until the test ends, at `msIntoWindow` after the start of a fixed window to
 * come, so that every figure the limiter derives from the time is known. Answers that
 * window's start.
 */
export function stopInWindow(clock: TestClock, msIntoWindow: number): number {
  const now = stopUntilTestEnds(clock).getTime();
  const start = now - (now % WINDOW_MS) + WINDOW_MS;
  clock.step(start + msIntoWindow - now);
  return start;
}

export const seconds = (ms: number) => Math.ceil(ms / 1_000);

/** The three headers every limited response carries. */
export function expectLimitHeaders(response: LightMyRequestResponse, limit: number, remaining: number, resetAtMs: number) {
  expect(
    {
      limit: response.headers['x-ratelimit-limit'],
      remaining: response.headers['x-ratelimit-remaining'],
      reset: response.headers['x-ratelimit-reset'],
    },
    `${response.statusCode} ${response.body}`,
  ).toEqual({ limit: String(limit), remaining: String(remaining), reset: String(seconds(resetAtMs)) });
}

/** A 429 whole: the spec's body with its details, the same figures as headers, and Retry-After. */
export function expectRateLimited(
  response: LightMyRequestResponse,
  expected: { category: string; limit: number; message: string; nowMs: number; retryAtMs: number },
) {
  expect(response.statusCode, response.body).toBe(429);
  const retryAfter = seconds(expected.retryAtMs - expected.nowMs);
  expect(response.json()).toEqual({
    error: 'rate_limit_exceeded',
    message: expected.message,
    status: 429,
    details: {
      category: expected.category,
      limit: expected.limit,
      remaining: 0,
      reset_at: seconds(expected.retryAtMs),
      retry_after_seconds: retryAfter,
    },
    request_id: expect.any(String),
  });
  expect(response.headers['retry-after']).toBe(String(retryAfter));
  expectLimitHeaders(response, expected.limit, 0, expected.retryAtMs);
}
