import { InvalidatedCache } from './invalidated-cache.js';

/** Who would receive a tenant's effects: the events its active endpoints subscribe to, and whether e-mail and chat cards are on. */
export interface EffectAudience {
  webhookEvents: ReadonlySet<string>;
  email: boolean;
  chat: boolean;
}

/**
 * Every evaluation needs its tenant's audience; this keeps it in memory. A change to the
 * tenant's endpoints, e-mail or chat settings invalidates the entry in every process
 * (`effect_audience`, see invalidation.ts); the TTL bounds staleness should a notice be missed.
 */
export class EffectAudienceCache extends InvalidatedCache<EffectAudience> {
  constructor() {
    super({ max: 50_000, ttlMs: 60_000 });
  }
}
