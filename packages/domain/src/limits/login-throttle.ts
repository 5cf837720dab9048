import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { FREE_ATTEMPTS } from './login-attempts.js';

/** The counter key of an account: its e-mail as sign-in compares it, hashed so that counters hold no addresses. */
function accountKey(email: string): string {
  return `login:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;
}

/**
 * Lets a sign-in attempt on `email` go ahead, or refuses it with 429 while the account's
 * failures hold it back. Asked before the account is looked up, it answers the same whether
 * or not the account exists.
 */
export async function admitLoginAttempt(deps: Deps, email: string): Promise<void> {
  const nowMs = deps.clock.now().getTime();
  const verdict = await deps.rateLimits.counters.attemptLogin(accountKey(email), nowMs);
  if (verdict.admitted) return;
  throw new AppError('rate_limit_exceeded', 'Too many failed sign-in attempts for this account; try again later', {
    category: 'login',
    limit: FREE_ATTEMPTS,
    remaining: 0,
    reset_at: Math.ceil(verdict.retryAtMs / 1_000),
    retry_after_seconds: Math.ceil((verdict.retryAtMs - nowMs) / 1_000),
  });
}

export async function forgetLoginFailures(deps: Deps, email: string): Promise<void> {
  await deps.rateLimits.counters.forgetLogin(accountKey(email));
}
