import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { checkerFor } from './checker.js';

/** Violations seen since the last check, in the order the responses came. */
const found: string[] = [];

/**
 * Checks every response `app.inject` gives against the document the app serves. A violation
 * is kept until the test ends (contract/setup.ts fails the test with it), so the test's own
 * assertions about the response are reported first.
 */
export function checkInjectedResponses(app: FastifyInstance): void {
  const checker = checkerFor(app.swagger());
  const inject = app.inject.bind(app);
  const checked = (options: InjectOptions | string, callback?: unknown): Promise<LightMyRequestResponse> => {
    // The chained and callback forms would get their responses past the check.
    if (options === undefined || callback !== undefined) throw new Error('test apps answer app.inject(options) as a promise only');
    return inject(options).then((response) => {
      const { req } = response.raw;
      const exchange = { method: req.method ?? 'GET', url: req.url ?? '/', status: response.statusCode, headers: response.headers };
      found.push(...checker.check({ ...exchange, body: response.body }));
      return response;
    });
  };
  app.inject = checked as FastifyInstance['inject'];
}

/**
 * A `fetch` that checks every response it gets against `document`, for tests that talk to
 * the app on a real port (the check of `app.inject` does not see those).
 */
export function checkedFetch(document: object): typeof fetch {
  const checker = checkerFor(document);
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const { pathname, search } = new URL(request.url);
    const exchange = { method: request.method, url: pathname + search, status: response.status };
    found.push(...checker.check({ ...exchange, headers: Object.fromEntries(response.headers), body: await response.clone().text() }));
    return response;
  };
}

/** Throws, listing them, when responses broke the document since the last call. */
export function failOnViolations(): void {
  const violations = found.splice(0);
  if (violations.length === 0) return;
  throw new Error(
    `${violations.length} response(s) differ from the OpenAPI document the app serves (README, "Contract test"):\n${violations.map((line) => `  - ${line}`).join('\n')}`,
  );
}
