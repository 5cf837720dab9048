export type DeliveryStatus = 'pending' | 'delivered' | 'retrying' | 'failed';

/** Where a delivery stands after one more attempt. */
export interface AttemptOutcome {
  status: Exclude<DeliveryStatus, 'pending'>;
  attempts: number;
  nextRetryAt: Date | null;
}

/**
 * The retry rule: a 2xx delivers; otherwise the n-th failed attempt waits `delaysMs[n-1]`
 * before the next, and the attempt after the last delay is the final one. With the spec's
 * four delays that is 5 attempts in all (1 initial and 4 retries), then `failed`.
 */
export function afterAttempt(attemptsBefore: number, delivered: boolean, delaysMs: readonly number[], now: Date): AttemptOutcome {
  const attempts = attemptsBefore + 1;
  if (delivered) return { status: 'delivered', attempts, nextRetryAt: null };
  const delay = delaysMs[attempts - 1];
  if (delay === undefined) return { status: 'failed', attempts, nextRetryAt: null };
  return { status: 'retrying', attempts, nextRetryAt: new Date(now.getTime() + delay) };
}
