/**
 * Failed sign-ins are limited per account, whatever address they come from, so that a
 * password cannot be guessed from many addresses at once. The first FREE_ATTEMPTS attempts
 * since the last success go through; after that each attempt must wait a delay that doubles
 * with every further failure, up to 15 minutes. Attempts are counted when they start (and
 * forgotten on success), so concurrent guesses cannot all slip through one check. A record
 * is forgotten LOGIN_QUIET_MS after its last attempt's delay ran out.
 */
export const FREE_ATTEMPTS = 5;
export const LOGIN_QUIET_MS = 15 * 60_000;
const MAX_DELAY_MS = 15 * 60_000;

/** What the counters keep per account. */
export interface LoginRecord {
  /** Attempts since the last success. */
  failures: number;
  lastAttemptMs: number;
  /** When the record is forgotten. */
  expiresAtMs: number;
}

export interface LoginVerdict {
  admitted: boolean;
  /** When the next attempt is admitted: now unless refused. */
  retryAtMs: number;
}

/**
 * How long the attempt after `failures` attempts must wait: nothing for the free ones, then
 * 2 s, 4 s, 8 s … up to 15 minutes. Indexed by failures, so the Redis script needs no formula.
 */
export const LOGIN_DELAYS_MS: readonly number[] = Array.from({ length: FREE_ATTEMPTS + 11 }, (_, failures) =>
  failures < FREE_ATTEMPTS ? 0 : Math.min(2 ** (failures - FREE_ATTEMPTS + 1) * 1_000, MAX_DELAY_MS),
);

function delayAfter(failures: number): number {
  return LOGIN_DELAYS_MS[Math.min(failures, LOGIN_DELAYS_MS.length - 1)]!;
}

/** The verdict on one attempt and the record after it; `record` is null when none is kept (or it expired). */
export function attemptOn(record: LoginRecord | null, nowMs: number): { verdict: LoginVerdict; record: LoginRecord } {
  const live = record && nowMs < record.expiresAtMs ? record : { failures: 0, lastAttemptMs: 0, expiresAtMs: 0 };
  const admittedFrom = live.lastAttemptMs + delayAfter(live.failures);
  if (live.failures >= FREE_ATTEMPTS && nowMs < admittedFrom) {
    return { verdict: { admitted: false, retryAtMs: admittedFrom }, record: live };
  }
  const failures = live.failures + 1;
  return {
    verdict: { admitted: true, retryAtMs: nowMs },
    record: { failures, lastAttemptMs: nowMs, expiresAtMs: nowMs + delayAfter(failures) + LOGIN_QUIET_MS },
  };
}
