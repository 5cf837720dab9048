import type { LoginSchedule, LoginVerdict } from './login-attempts.js';
import type { WindowQuery, WindowVerdict } from './sliding-window.js';

/**
 * Where rate-limit counters live: Redis, shared by every API process, or this process's
 * memory (embedded mode, and the fallback while Redis is unreachable). Every operation is
 * atomic per key and takes the instant from its caller, so that a test clock rules in both.
 */
export interface RateCounters {
  /** Judges one request against `key`'s sliding window; an admitted request is counted unless `counted` is false. */
  hit(key: string, query: WindowQuery, counted: boolean): Promise<WindowVerdict>;
  /** Takes back one request `hit` counted on `key` at `query.nowMs`: the request turned out to count elsewhere. */
  withdraw(key: string, query: WindowQuery): Promise<void>;
  /**
   * Admits one sign-in attempt on `key` unless earlier failures hold it back under `rules` (only
   * when `enforced`); an admitted attempt counts as a failure until forgotten.
   */
  attemptLogin(key: string, nowMs: number, rules: LoginSchedule, enforced: boolean): Promise<LoginVerdict>;
  /** Forgets `key`'s failed sign-in attempts (after a successful one). */
  forgetLogin(key: string): Promise<void>;
  /** True while counters that should be shared are kept in this process only. */
  readonly degraded: boolean;
}

/** One sliding window a request counts against: `RateCounters.hit`'s key and query. */
export interface RateGate {
  key: string;
  query: WindowQuery;
}

/**
 * How an evaluation is admitted by its tenant's rate limit when the limit is judged by the
 * handler (the API's `deferredLimit`): judged with the first call evaluate makes to the counters
 * anyway, so that the history read and the limit cost one round trip together.
 */
export interface Admission {
  gate: RateGate;
  /** Takes the verdict on `gate`, counted: returns when admitted, throws the refusal otherwise. */
  judged(verdict: WindowVerdict): void;
}
