import type { SubscriptionRow } from '@agov/db';
import { InvalidatedCache } from './invalidated-cache.js';

export type Plan = SubscriptionRow['plan'];

/** What decides a tenant's limits: the plan, and the status that may withhold it. */
export type PlanStanding = Pick<SubscriptionRow, 'plan' | 'status' | 'pastDueSince'>;

/**
 * Every request of a tenant needs its plan; this keeps its standing in memory. A subscription
 * change invalidates the tenant's entry in every process (`tenant_plan`, see invalidation.ts),
 * so a new plan's limits apply at once; the TTL bounds staleness should a notification be missed.
 */
export class TenantPlanCache extends InvalidatedCache<PlanStanding> {
  constructor() {
    super({ max: 50_000, ttlMs: 60_000 });
  }
}
