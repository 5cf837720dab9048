/**
 * What came of one send to the outside world: a webhook POST, a Slack call, an e-mail, a
 * payment-provider call. Every such port resolves to one instead of throwing, so a failure is
 * a value each caller handles the same way: it records or reports `error`, and tries again on
 * its own schedule (the outbox's) or not at all. A port rejects only on a bug.
 *
 * A success carries what the send returned (`T`'s fields, e.g. `url`, or a posted message's
 * `channel` and `ts`).
 */
export type SendResult<T extends object = object> = ({ readonly ok: true } & T) | SendFailure;

export interface SendFailure {
  readonly ok: false;
  /**
   * Why, in a few words fit for a log, a stored attempt or an admin's Test result: a status, a
   * code, a timeout. Never a secret, never the other side's response body.
   */
  readonly error: string;
  /** The HTTP status the other side answered with, when it answered at all and the caller keeps it. */
  readonly status?: number;
  /** No answer within the time limit: the one failure that holds a sender for its whole limit. */
  readonly timedOut?: boolean;
}
