import { eq } from 'drizzle-orm';
import { subscriptions } from '@agov/db';
import type { Deps } from '../deps.js';
import type { Plan } from './tenant-plan-cache.js';

/** What a tenant's request counts against: evaluate (POST /evaluate), read (GET), write (everything else). */
export type RateCategory = 'evaluate' | 'read' | 'write';

/** Requests per tenant per minute, by plan and category (CONTRACT). */
export const PLAN_RATE_LIMITS: Readonly<Record<Plan, Readonly<Record<RateCategory, number>>>> = {
  free: { evaluate: 120, read: 600, write: 120 },
  starter: { evaluate: 1_200, read: 6_000, write: 1_200 },
  business: { evaluate: 12_000, read: 60_000, write: 12_000 },
  enterprise: { evaluate: 120_000, read: 600_000, write: 120_000 },
};

/** The tenant's requests per minute in `category`: the environment's override, else its plan's figure. */
export async function tenantRateLimit(deps: Deps, tenantId: string, category: RateCategory): Promise<number> {
  const override = deps.rateLimits.perMinute[category];
  if (override !== null) return override;
  return PLAN_RATE_LIMITS[await tenantPlan(deps, tenantId)][category];
}

export async function tenantPlan(deps: Deps, tenantId: string): Promise<Plan> {
  const cached = deps.tenantPlans.get(tenantId);
  if (cached) return cached;
  const ticket = deps.tenantPlans.ticket();
  const [row] = await deps.database.db.select({ plan: subscriptions.plan }).from(subscriptions).where(eq(subscriptions.tenantId, tenantId));
  // Every tenant gets a subscription at signup; without one it is on the free plan.
  const plan = row?.plan ?? 'free';
  deps.tenantPlans.set(tenantId, plan, ticket);
  return plan;
}
