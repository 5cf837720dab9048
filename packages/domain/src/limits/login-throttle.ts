import type { LimitsDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { sha256Hex } from '../support/sha256.js';
import { PER_ACCOUNT, PER_ADDRESS, type LoginSchedule } from './login-attempts.js';

/** Counter keys hold hashes, so that counters keep neither addresses nor e-mails. */
const accountKey = (email: string) => `login:${sha256Hex(email.toLowerCase())}`;
const addressKey = (email: string, clientAddress: string) => `${accountKey(email)}:${sha256Hex(clientAddress)}`;

/**
 * Lets a sign-in attempt on `email` from `clientAddress` go ahead, or refuses it with 429
 * while failures hold it back: those of this address on this account, or, for an address
 * that has failed on it before, those of every address on the account (login-attempts.ts).
 * Asked before the account is looked up, it answers the same whether or not the account exists.
 */
export async function admitLoginAttempt(deps: LimitsDeps, email: string, clientAddress: string): Promise<void> {
  const nowMs = deps.clock.now().getTime();
  const { counters } = deps.rateLimits;
  const fromAddress = await counters.attemptLogin(addressKey(email, clientAddress), nowMs, PER_ADDRESS, true);
  if (!fromAddress.admitted) throw tooMany(PER_ADDRESS, fromAddress.retryAtMs, nowMs);
  const onAccount = await counters.attemptLogin(accountKey(email), nowMs, PER_ACCOUNT, fromAddress.priorFailures > 0);
  if (!onAccount.admitted) throw tooMany(PER_ACCOUNT, onAccount.retryAtMs, nowMs);
}

/** After a successful sign-in from `clientAddress`: the account's other addresses keep their records. */
export async function forgetLoginFailures(deps: LimitsDeps, email: string, clientAddress: string): Promise<void> {
  await deps.rateLimits.counters.forgetLogin(addressKey(email, clientAddress));
}

function tooMany(rules: LoginSchedule, retryAtMs: number, nowMs: number): AppError {
  return new AppError('rate_limit_exceeded', 'Too many failed sign-in attempts for this account; try again later', {
    category: 'login',
    limit: rules.freeAttempts,
    remaining: 0,
    reset_at: Math.ceil(retryAtMs / 1_000),
    retry_after_seconds: Math.ceil((retryAtMs - nowMs) / 1_000),
  });
}
