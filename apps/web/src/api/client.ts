import createClient from 'openapi-fetch';
import type { paths } from './schema';

/** The spec's error body; every failed call is thrown as an ApiError carrying it. */
export interface ApiErrorBody {
  error: string;
  message: string;
  status: number;
  request_id?: string;
  details?: unknown;
}

export class ApiError extends Error {
  constructor(readonly body: ApiErrorBody) {
    super(body.message);
  }
  get status() {
    return this.body.status;
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
  throw new ApiError(errorBody(error, response));
}

function errorBody(error: unknown, response: Response): ApiErrorBody {
  if (error && typeof error === 'object' && 'message' in error && 'error' in error) return error as ApiErrorBody;
  return { error: 'http_error', message: `The service answered ${response.status} ${response.statusText}.`, status: response.status };
}

/** A download link for an export, opened by the browser itself so that large files stream to disk. */
export function downloadUrl(path: string, query: Record<string, string | undefined> = {}): string {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query)) if (value) url.searchParams.set(name, value);
  return url.pathname + url.search;
}
