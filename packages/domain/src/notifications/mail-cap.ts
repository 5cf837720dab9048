import type { NotificationDeps } from './deps.js';
import { tenantPlan } from '../limits/plans.js';
import type { Plan } from '../caches/tenant-plans.js';
import { HOUR_MS } from '../support/time-range.js';

/**
 * Messages a tenant's mail may hand to the mail server per hour, by plan: approval and
 * confirmation mail together, one per recipient, a retry counting again. It bounds how much
 * mail any one tenant can make the service send from `SMTP_FROM`.
 */
export const PLAN_MAIL_PER_HOUR: Readonly<Record<Plan, number>> = {
  free: 100,
  starter: 1_000,
  business: 10_000,
  enterprise: 100_000,
};

/**
 * Counts one message of the tenant against its hourly cap, on the rate-limit counters (a
 * sliding hour, shared by every process when they live in Redis). False when the cap is
 * reached: the message must not be sent. The first refusal in an hour is reported, so a
 * tenant over its cap makes one log line an hour, not one per message.
 */
export async function admitMail(deps: NotificationDeps, tenantId: string): Promise<boolean> {
  const plan = await tenantPlan(deps, tenantId);
  const perHour = PLAN_MAIL_PER_HOUR[plan];
  const nowMs = deps.clock.now().getTime();
  const { counters } = deps.rateLimits;
  if ((await counters.hit(`mail:${tenantId}`, { limit: perHour, windowMs: HOUR_MS, nowMs }, true)).allowed) return true;
  const firstThisHour = await counters.hit(`mail-capped:${tenantId}`, { limit: 1, windowMs: HOUR_MS, nowMs }, true);
  if (firstThisHour.allowed) deps.mailer.reportCapped({ tenantId, plan, perHour });
  return false;
}
