import type { Config } from '@agov/config';
import type { CoreDeps } from '../caches/caches.js';
import type { RateCounters } from './counters.js';

export interface LimitsDeps extends CoreDeps {
  readonly rateLimits: {
    readonly counters: RateCounters;
    /** Per tenant per minute by category (null: the plan decides), and per client address without credentials. */
    readonly perMinute: Config['rateLimits'];
  };
}
