import { eq } from 'drizzle-orm';
import { subscriptions } from '@agov/db';
import type { LimitsDeps } from './deps.js';
import type { Plan, PlanStanding } from '../caches/tenant-plans.js';

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
export async function tenantRateLimit(deps: LimitsDeps, tenantId: string, category: RateCategory): Promise<number> {
  const override = deps.rateLimits.perMinute[category];
  if (override !== null) return override;
  return PLAN_RATE_LIMITS[await tenantPlan(deps, tenantId)][category];
}

/** How long a `past_due` subscription keeps its plan's limits (CONTRACT, trust decisions). */
export const PAST_DUE_GRACE_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * The plan whose limits a subscription earns now: its own while `active`, or `past_due` for
 * at most PAST_DUE_GRACE_MS since it became so; the free plan's once that has run out, and
 * when `canceled`. So a tenant that stops paying does not keep paid limits.
 */
export function planInForce({ plan, status, pastDueSince }: PlanStanding, now: Date): Plan {
  if (status === 'active') return plan;
  if (status === 'past_due' && pastDueSince !== null && now.getTime() - pastDueSince.getTime() <= PAST_DUE_GRACE_MS) return plan;
  return 'free';
}

/** The plan whose limits apply to the tenant now (`planInForce`). */
export async function tenantPlan(deps: LimitsDeps, tenantId: string): Promise<Plan> {
  return planInForce(await standingOf(deps, tenantId), deps.clock.now());
}

async function standingOf(deps: LimitsDeps, tenantId: string): Promise<PlanStanding> {
  const cached = deps.caches.tenantPlans.get(tenantId);
  if (cached) return cached;
  const ticket = deps.caches.tenantPlans.ticket();
  const [row] = await deps.database.db
    .select({ plan: subscriptions.plan, status: subscriptions.status, pastDueSince: subscriptions.pastDueSince })
    .from(subscriptions)
    .where(eq(subscriptions.tenantId, tenantId));
  // Every tenant gets a subscription at signup; without one it is on the free plan.
  const standing = row ?? { plan: 'free', status: 'active', pastDueSince: null };
  deps.caches.tenantPlans.set(tenantId, standing, ticket);
  return standing;
}
