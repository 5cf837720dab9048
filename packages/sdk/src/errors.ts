import type { Schema } from './schemas.js';

/** The body of every error the service answers: the contract's `Error`. */
export type ErrorBody = Schema<'Error'>;

/**
 * An error answer of the service, thrown by every call of the client. `error` is the
 * machine-readable code (`validation_error`, `not_found`, `conflict`, `rate_limit_exceeded`, …).
 * A body that is not the service's error shape (a proxy's page) keeps the HTTP status, the
 * code `http_<status>`, and the text as message.
 */
export class GovernanceError extends Error {
  override readonly name = 'GovernanceError';
  readonly error: string;
  readonly status: number;
  readonly request_id: string | null;
  readonly details: Record<string, unknown> | null;
  readonly trace_id: string | null;

  constructor(body: ErrorBody | { error: string; message: string; status: number }) {
    super(body.message);
    this.error = body.error;
    this.status = body.status;
    this.request_id = 'request_id' in body ? body.request_id : null;
    this.details = 'details' in body && body.details ? body.details : null;
    this.trace_id = 'trace_id' in body && body.trace_id ? body.trace_id : null;
  }

  /** Reads an error response; its body is consumed. */
  static async fromResponse(response: Response): Promise<GovernanceError> {
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (isErrorBody(parsed)) return new GovernanceError(parsed);
    const message = text.trim().slice(0, 500) || response.statusText || `HTTP ${response.status}`;
    return new GovernanceError({ error: `http_${response.status}`, message, status: response.status });
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return typeof body.error === 'string' && typeof body.message === 'string' && typeof body.status === 'number';
}

/** What every outcome of guard() that keeps the action from running carries. */
export abstract class GuardError extends Error {
  /** The trace that records the refused action. */
  readonly traceId: string;
  /** The approval request, when the decision went through one. */
  readonly approvalId: string | null;
  /** Why: the matched rule's rationale, or the reviewer's note, or what ran out. */
  readonly reason: string;

  constructor(message: string, fields: { traceId: string; approvalId: string | null; reason: string }) {
    super(message);
    this.traceId = fields.traceId;
    this.approvalId = fields.approvalId;
    this.reason = fields.reason;
  }
}

/** The policy decided `deny`. */
export class ActionDenied extends GuardError {
  override readonly name = 'ActionDenied';
}

/** A reviewer denied the approval request. */
export class ApprovalRejected extends GuardError {
  override readonly name = 'ApprovalRejected';
  /** Who denied it, as the approval shows. */
  readonly approverName: string | null;

  constructor(message: string, fields: { traceId: string; approvalId: string; reason: string; approverName: string | null }) {
    super(message, fields);
    this.approverName = fields.approverName;
  }
}

/** The approval request expired before anyone decided. */
export class ApprovalExpired extends GuardError {
  override readonly name = 'ApprovalExpired';
}

/**
 * guard()'s own time limit passed while the request was still pending. The request stays
 * pending on the service: a reviewer may still decide it, but this call will not act on it.
 */
export class ApprovalTimeout extends GuardError {
  override readonly name = 'ApprovalTimeout';
}
