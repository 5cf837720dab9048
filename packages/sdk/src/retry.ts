import { IDEMPOTENT_OPERATIONS } from './generated/openapi.js';

/** How the client retries a call the service could not take (429, 503) or that never reached it. */
export interface RetryOptions {
  /** Most attempts per call, the first included. Default 4. */
  attempts?: number;
  /** Longest a call may spend in attempts and waits; no retry starts past it. Default 30 000 ms. */
  maxElapsedMs?: number;
  /** First backoff delay; each later one doubles, with full jitter. Default 250 ms. */
  baseDelayMs?: number;
  /** Longest single backoff delay (a `Retry-After` may ask for more, within `maxElapsedMs`). Default 5 000 ms. */
  maxDelayMs?: number;
}

const DEFAULTS: Required<RetryOptions> = { attempts: 4, maxElapsedMs: 30_000, baseDelayMs: 250, maxDelayMs: 5_000 };

/** Statuses that mean "not done, try again later": the rate limit and an unavailable service. */
const RETRIED_STATUSES = new Set([429, 503]);

/**
 * The operations the service de-duplicates by `Idempotency-Key`, as the contract declares them
 * (evaluate, outcome, approve/deny and every create). Only these, and reads, are retried after
 * a network error, when the service may have done the work without answering.
 */
const IDEMPOTENT = IDEMPOTENT_OPERATIONS.map((operation) => {
  const [method, path] = operation.split(' ') as [string, string];
  return { method, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) };
});

export function acceptsIdempotencyKey(method: string, pathname: string): boolean {
  return IDEMPOTENT.some((operation) => operation.method === method && operation.pattern.test(pathname));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A fetch that sends one logical call, retrying it per `options`. An idempotent POST gets
 * one `Idempotency-Key` (unless the caller set one) that every attempt repeats, so the
 * service does its work once however many attempts reach it.
 */
export function retryingFetch(baseFetch: typeof fetch, options: RetryOptions | false | undefined): (request: Request) => Promise<Response> {
  const settings = options === false ? { ...DEFAULTS, attempts: 1 } : { ...DEFAULTS, ...options };
  return async (original) => {
    const started = Date.now();
    const pathname = new URL(original.url).pathname;
    let template = original;
    if (acceptsIdempotencyKey(original.method, pathname) && !original.headers.has('idempotency-key')) {
      template = new Request(original, { headers: withHeader(original.headers, 'idempotency-key', crypto.randomUUID()) });
    }
    const mayRepeatAfterNetworkError = SAFE_METHODS.has(template.method) || template.headers.has('idempotency-key');
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= settings.attempts;
      let response: Response;
      try {
        // Each attempt sends a copy; the template keeps its body for the next one. The caller's
        // signal goes with it explicitly: a clone's own signal follows the original's only
        // through a weak reference, which a garbage collection can drop, and the abort with it
        // (seen with Node's fetch on Node 20 and 24). Using `original` here also keeps it, and
        // so its own link to the caller's signal, alive until the call ends.
        response = await baseFetch(template.clone(), { signal: original.signal });
      } catch (error) {
        if (isAbort(error, original.signal) || last || !mayRepeatAfterNetworkError) throw error;
        const delay = backoff(settings, attempt);
        if (Date.now() - started + delay > settings.maxElapsedMs) throw error;
        await sleep(delay, original.signal);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const delay = retryAfterMs(response.headers.get('retry-after')) ?? backoff(settings, attempt);
      if (Date.now() - started + delay > settings.maxElapsedMs) return response;
      await response.body?.cancel();
      await sleep(delay, original.signal);
    }
  };
}

function withHeader(headers: Headers, name: string, value: string): Headers {
  const copy = new Headers(headers);
  copy.set(name, value);
  return copy;
}

/** Full jitter: a random delay up to the doubled base, so many clients do not retry in step. */
function backoff(settings: Required<RetryOptions>, attempt: number): number {
  return Math.random() * Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
}

/** `Retry-After` in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && error.name === 'AbortError');
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
