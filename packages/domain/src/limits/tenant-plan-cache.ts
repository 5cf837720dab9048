import type { SubscriptionRow } from '@agov/db';
import { InvalidatedCache } from '../cache.js';

export type Plan = SubscriptionRow['plan'];

/**
 * Every request of a tenant needs its plan; this keeps it in memory. A subscription change
 * invalidates the tenant's entry in every process (`tenant_plan`, see invalidation.ts), so a
 * new plan's limits apply at once; the TTL bounds staleness should a notification be missed.
 */
export class TenantPlanCache extends InvalidatedCache<Plan> {
  constructor() {
    super({ max: 50_000, ttlMs: 60_000 });
  }
}
