import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

/** The spec's error body, as the service's OpenAPI document declares it. */
export type ApiErrorBody = components['schemas']['Error'];

/**
 * A failed call, with the service's error body; `body` is null when what answered was not the
 * service (a proxy's error page, say), and the message then says only the status.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The one client of the REST API. The session cookie travels on its own (same origin);
 * `X-Requested-With` is the CSRF header every state-changing cookie request must carry.
 */
export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  headers: { 'X-Requested-With': 'XMLHttpRequest' },
});

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a successful call, or an ApiError with the service's own explanation. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body = isErrorBody(error) ? error : null;
  throw new ApiError(response.status, body, body?.message ?? `The service answered ${response.status} ${response.statusText}.`);
}

function isErrorBody(error: unknown): error is ApiErrorBody {
  return typeof error === 'object' && error !== null && 'message' in error && 'error' in error;
}

/** A download link for an export, opened by the browser itself so that large files stream to disk. */
export function downloadUrl(path: string, query: Record<string, string | undefined> = {}): string {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query)) if (value) url.searchParams.set(name, value);
  return url.pathname + url.search;
}
