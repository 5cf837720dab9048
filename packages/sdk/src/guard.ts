import { ActionDenied, ApprovalExpired, ApprovalRejected, ApprovalTimeout } from './errors.js';
import { sleep } from './retry.js';
import type { Schema } from './schemas.js';

/** What guard() needs of the client; `createClient` provides it. */
export interface GuardedCalls<Action> {
  evaluate(action: Action, call?: { signal?: AbortSignal }): Promise<Evaluation>;
  getApprovalStatus(id: string, call?: { signal?: AbortSignal; wait?: number }): Promise<ApprovalStatus>;
  recordOutcome(traceId: string, outcome: { status: 'success' | 'error'; metadata?: Record<string, unknown> }): Promise<void>;
}

/** What guard() reads of an evaluation. */
export type Evaluation = Pick<Schema<'Evaluation'>, 'decision' | 'trace_id' | 'approval_request_id' | 'reason' | 'grant'>;

/** What guard() reads of an approval's status. */
export type ApprovalStatus = Pick<Schema<'ApprovalStatus'>, 'status' | 'approver_name' | 'decision_note' | 'grant'>;

/** What `fn` is given when it may run: its trace, and the execution grant to hand to the tool if there is one. */
export interface Permit {
  traceId: string;
  /** The approval's grant, or the allow's when the tenant turned grants on for allows; else null (docs/grants.md). */
  grant: string | null;
}

export interface GuardOptions<T> {
  /** Cancels the evaluation or the wait for a decision; `fn` then never runs. */
  signal?: AbortSignal;
  /** Longest wait for a reviewer's decision before `ApprovalTimeout`. Default 10 minutes. */
  timeoutMs?: number;
  /** Pause between status polls when the service answers a wait at once. Default 1 000 ms. */
  pollIntervalMs?: number;
  /** Called with the decision, e.g. to tell a user that the action waits for a reviewer. */
  onEvaluated?: (evaluation: Evaluation) => void;
  /** The outcome's `metadata` for `fn`'s result. Default `{summary}`: the result as text, at most 1 000 characters. */
  summarize?: (result: T) => Record<string, unknown>;
  /**
   * Called when the outcome could not be recorded. The action has run by then, so guard()
   * still returns its result (or rethrows its error) rather than throw this one.
   */
  onOutcomeError?: (error: unknown) => void;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** The longest single wait the service grants (CONTRACT: `wait` 1–60 seconds). */
const MAX_WAIT_SECONDS = 60;
const SUMMARY_LIMIT = 1_000;

/**
 * Evaluates `action`; runs `fn` only once it is allowed, or approved by a reviewer, giving it
 * the trace and the grant a tool may verify (`Permit`); records the outcome on the trace (`success` with a summary of the result, or `error` with the
 * error's message); returns `fn`'s result or rethrows its error. A refusal throws
 * `ActionDenied`, `ApprovalRejected`, `ApprovalExpired` or `ApprovalTimeout`.
 */
export async function guard<Action, T>(
  calls: GuardedCalls<Action>,
  action: Action,
  fn: (permit: Permit) => T | Promise<T>,
  options: GuardOptions<T> = {},
): Promise<T> {
  const { signal } = options;
  signal?.throwIfAborted();
  const evaluation = await calls.evaluate(action, signal ? { signal } : {});
  options.onEvaluated?.(evaluation);
  const traceId = evaluation.trace_id;
  if (evaluation.decision === 'deny') {
    throw new ActionDenied(`Action denied: ${evaluation.reason}`, { traceId, approvalId: null, reason: evaluation.reason });
  }
  const grant =
    evaluation.decision === 'approval_required'
      ? await awaitApproval(calls, traceId, evaluation.approval_request_id!, options)
      : (evaluation.grant ?? null);
  signal?.throwIfAborted();

  let result: T;
  try {
    result = await fn({ traceId, grant });
  } catch (error) {
    await record(calls, traceId, { status: 'error', metadata: { error: messageOf(error) } }, options.onOutcomeError);
    throw error;
  }
  await record(calls, traceId, { status: 'success', metadata: (options.summarize ?? summarize)(result) }, options.onOutcomeError);
  return result;
}

/** Waits for the decision; resolves with the approval's grant (null if it carries none), or throws the refusal. */
async function awaitApproval<Action>(
  calls: GuardedCalls<Action>,
  traceId: string,
  approvalId: string,
  options: GuardOptions<never>,
): Promise<string | null> {
  const { signal } = options;
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const fields = { traceId, approvalId };
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) {
      const reason = `no decision within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`;
      throw new ApprovalTimeout(`Approval ${approvalId} timed out: ${reason}`, { ...fields, reason });
    }
    // Held by the service for up to `wait` seconds; under a second left, a plain poll.
    const wait = left >= 1000 ? Math.min(MAX_WAIT_SECONDS, Math.floor(left / 1000)) : 0;
    const asked = Date.now();
    const approval = await calls.getApprovalStatus(approvalId, { ...(wait ? { wait } : {}), ...(signal ? { signal } : {}) });
    switch (approval.status) {
      case 'approved':
        return approval.grant ?? null;
      case 'denied': {
        const reason = approval.decision_note ?? `denied by ${approval.approver_name ?? 'a reviewer'}`;
        throw new ApprovalRejected(`Approval ${approvalId} was denied: ${reason}`, {
          ...fields,
          reason,
          approverName: approval.approver_name,
        });
      }
      case 'expired': {
        const reason = 'the approval request expired before anyone decided';
        throw new ApprovalExpired(`Approval ${approvalId} expired`, { ...fields, reason });
      }
    }
    // A service that does not hold the request answers at once: poll at a gentle pace.
    const held = Date.now() - asked;
    if (held < wait * 1000 - 100)
      await sleep(Math.min(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, Math.max(0, deadline - Date.now())), signal);
  }
}

async function record<Action>(
  calls: GuardedCalls<Action>,
  traceId: string,
  outcome: { status: 'success' | 'error'; metadata: Record<string, unknown> },
  onOutcomeError: ((error: unknown) => void) | undefined,
) {
  try {
    await calls.recordOutcome(traceId, outcome);
  } catch (error) {
    onOutcomeError?.(error);
  }
}

function summarize(result: unknown): Record<string, unknown> {
  let text: string;
  try {
    text = typeof result === 'string' ? result : (JSON.stringify(result) ?? String(result));
  } catch {
    text = String(result);
  }
  return { summary: text.length > SUMMARY_LIMIT ? `${text.slice(0, SUMMARY_LIMIT - 1)}…` : text };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
