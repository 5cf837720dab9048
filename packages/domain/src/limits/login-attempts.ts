/**
 * Failed sign-ins are limited per account *and* client address (CONTRACT, trust decisions):
 * from one address, the first free attempts since the last success go through; after that
 * each attempt must wait a delay that doubles with every further failure, up to 15 minutes.
 * So a guesser is slowed where it guesses, and cannot lock the owner out from elsewhere.
 * Across all addresses an account has a far higher ceiling, which slows only addresses that
 * have failed on it already: a correct password from an address without failures always goes
 * through. Attempts are counted when they start (and forgotten on success), so concurrent
 * guesses cannot all slip through one check. A record is forgotten LOGIN_QUIET_MS after its
 * last attempt's delay ran out.
 */
export const LOGIN_QUIET_MS = 15 * 60_000;
const MAX_DELAY_MS = 15 * 60_000;

/** How many attempts a record admits freely, and the wait after each number of failures. */
export interface LoginSchedule {
  freeAttempts: number;
  /** Indexed by failures, so the Redis script needs no formula. */
  delaysMs: readonly number[];
}

/** Nothing for the free attempts, then 2 s, 4 s, 8 s … up to 15 minutes. */
function schedule(freeAttempts: number): LoginSchedule {
  const delaysMs = Array.from({ length: freeAttempts + 11 }, (_, failures) =>
    failures < freeAttempts ? 0 : Math.min(2 ** (failures - freeAttempts + 1) * 1_000, MAX_DELAY_MS),
  );
  return { freeAttempts, delaysMs };
}

/** One account from one client address. */
export const PER_ADDRESS = schedule(5);
/** One account from every address together: the ceiling on a guesser with many addresses. */
export const PER_ACCOUNT = schedule(100);

/** What the counters keep per record. */
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
  /** Attempts since the last success before this one (it is counted only when admitted). */
  priorFailures: number;
}

function delayAfter({ delaysMs }: LoginSchedule, failures: number): number {
  return delaysMs[Math.min(failures, delaysMs.length - 1)]!;
}

/**
 * The verdict on one attempt and the record after it; `record` is null when none is kept (or
 * it expired). An attempt that is not `enforced` is admitted whatever the record says, and
 * counted all the same.
 */
export function attemptOn(
  record: LoginRecord | null,
  nowMs: number,
  rules: LoginSchedule,
  enforced = true,
): { verdict: LoginVerdict; record: LoginRecord } {
  const live = record && nowMs < record.expiresAtMs ? record : { failures: 0, lastAttemptMs: 0, expiresAtMs: 0 };
  const admittedFrom = live.lastAttemptMs + delayAfter(rules, live.failures);
  if (enforced && live.failures >= rules.freeAttempts && nowMs < admittedFrom) {
    return { verdict: { admitted: false, retryAtMs: admittedFrom, priorFailures: live.failures }, record: live };
  }
  const failures = live.failures + 1;
  return {
    verdict: { admitted: true, retryAtMs: nowMs, priorFailures: live.failures },
    record: { failures, lastAttemptMs: nowMs, expiresAtMs: nowMs + delayAfter(rules, failures) + LOGIN_QUIET_MS },
  };
}
