import { eq } from 'drizzle-orm';
import { subscriptions, type SubscriptionRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { BillingDeps } from './deps.js';
import { notFound } from '../support/errors.js';

/** The tenant's subscription; every tenant has one from signup on. */
export async function tenantSubscription(deps: BillingDeps, tenantId: string): Promise<SubscriptionRow> {
  const [row] = await deps.database.db.select().from(subscriptions).where(eq(subscriptions.tenantId, tenantId));
  if (!row) throw notFound('Subscription');
  return row;
}

export const getSubscription = (deps: BillingDeps, principal: Principal) => tenantSubscription(deps, principal.tenantId);
