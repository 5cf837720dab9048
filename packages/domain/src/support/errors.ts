/** The spec's error codes, and the one table that maps each to its HTTP status. */
export const codeToStatus = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  export_too_large: 413,
  // Not one of the spec's codes: a request over a size limit (CONTRACT: bodies above 1 MiB get 413).
  payload_too_large: 413,
  // An Idempotency-Key sent again with another method, path or body (CONTRACT, "Integration decisions").
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  billing_not_configured: 501,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof codeToStatus;

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** The trace the error concerns, shown as the body's `trace_id`. */
    readonly traceId?: string,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = codeToStatus[code];
  }
}

export const notFound = (resource: string) => new AppError('not_found', `${resource} not found`);
