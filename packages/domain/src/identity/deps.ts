import type { LimitsDeps } from '../limits/deps.js';

/** Sign-in is throttled, so identity needs the rate counters too. */
export interface IdentityDeps extends LimitsDeps {
  readonly sessionTtlMs: number;
}
