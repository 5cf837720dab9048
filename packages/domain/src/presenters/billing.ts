import type { SubscriptionRow } from '@agov/db';
import { iso } from './time.js';

/** The spec's Subscription: exactly these four fields. */
export const presentSubscription = (row: Pick<SubscriptionRow, 'plan' | 'status' | 'currentPeriodEnd' | 'cancelAtPeriodEnd'>) => ({
  plan: row.plan,
  status: row.status,
  current_period_end: iso(row.currentPeriodEnd),
  cancel_at_period_end: row.cancelAtPeriodEnd,
});
