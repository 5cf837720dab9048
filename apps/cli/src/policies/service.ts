import { Refusal, UsageError } from '../command.js';

/** The environment of the commands that call the service: the SDK's and the examples' names. */
export const SERVICE_ENVIRONMENT = `Environment:
  AGOV_URL       where the service runs, e.g. https://governance.example.com (no /api/v1)
  AGOV_API_KEY   an API key of the tenant with agents:read and policies:read (plan and apply also
                 policies:write). Never logged`;

/** An error answer of the service: the spec's body. */
export class ServiceError extends Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

export interface Service {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

/** Most a call may take: the service answers within its own 30 s request limit. */
const CALL_TIMEOUT_MS = 35_000;

/** The service of AGOV_URL, called with AGOV_API_KEY; either unset is bad usage (exit 2). */
export function serviceOf(env: NodeJS.ProcessEnv): Service {
  const base = env.AGOV_URL;
  const key = env.AGOV_API_KEY;
  if (!base) throw new UsageError('AGOV_URL is not set: the service to call, e.g. http://127.0.0.1:4000');
  if (!key) throw new UsageError('AGOV_API_KEY is not set: an API key of the tenant');
  const root = base.replace(/\/+$/, '');
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (error) {
      throw new Refusal(`cannot reach the service at ${root}: ${(error as Error).cause ?? (error as Error).message}`);
    }
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) {
      const answer = (parsed ?? {}) as { error?: string; message?: string; details?: Record<string, unknown> };
      const message = `${method} ${path}: ${response.status} ${answer.error ?? ''}${answer.message ? `: ${answer.message}` : ''}`;
      throw new ServiceError(response.status, answer.error ?? '', message, answer.details);
    }
    if (parsed === undefined) throw new Refusal(`${method} ${path}: the service answered something that is not JSON`);
    return parsed as T;
  };
  return { get: (path) => call('GET', path), post: (path, body) => call('POST', path, body) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
