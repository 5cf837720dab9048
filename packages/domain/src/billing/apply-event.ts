import { eq } from 'drizzle-orm';
import { billingEvents, subscriptions, type SubscriptionRow, type Tx } from '@agov/db';
import type { BillingDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { transactionInvalidating } from '../caches/invalidation.js';
import type { EventSubject } from './events.js';
import { isUuid } from '../support/ids.js';

/** What became of a delivered event; the route logs it, the provider only needs the 200. */
export interface EventReceipt {
  eventId: string;
  eventType: string;
  /**
   * `duplicate`: applied before (the provider retried, or sent it twice at once). `stale`: older
   * than the last event applied to the tenant's subscription, so it would undo a newer state.
   * `ignored`: not one of the four types, no known tenant, about another subscription than the
   * tenant's, or nothing to change (`reason` says which).
   */
  outcome: 'applied' | 'duplicate' | 'stale' | 'ignored';
  tenantId?: string;
  reason?: string;
}

/**
 * Verifies a delivery of the provider's webhook and applies its event to the tenant's
 * subscription, exactly once and in the provider's order. One transaction records the event
 * id (its primary key makes a concurrent second delivery wait, then find it recorded), locks
 * the subscription row (so two events of one tenant apply one after the other), and writes
 * the change together with the event's `created`, against which later arrivals are compared.
 */
export async function receiveProviderEvent(deps: BillingDeps, rawBody: Buffer, signature: string | undefined): Promise<EventReceipt> {
  if (!deps.billing.verifyEvent)
    throw new AppError('billing_not_configured', 'Billing webhook not configured: STRIPE_WEBHOOK_SECRET is unset');
  const event = deps.billing.verifyEvent(rawBody, signature, deps.clock.now());
  const receipt = (result: Omit<EventReceipt, 'eventId' | 'eventType'>): EventReceipt => ({
    eventId: event.eventId,
    eventType: event.eventType,
    ...result,
  });
  const reading = event.subscription;
  if (!reading) return receipt({ outcome: 'ignored', reason: 'event type not handled' });
  const eventAt = event.createdAt;

  return transactionInvalidating(deps, async (tx, invalidate) => {
    const recorded = await tx
      .insert(billingEvents)
      .values({ id: event.eventId, type: event.eventType, receivedAt: deps.clock.now() })
      .onConflictDoNothing()
      .returning({ id: billingEvents.id });
    if (recorded.length === 0) return receipt({ outcome: 'duplicate' });

    const tenantId = await tenantOf(tx, reading.subject);
    const [current] = tenantId ? await tx.select().from(subscriptions).where(eq(subscriptions.tenantId, tenantId)).for('update') : [];
    if (!current) return receipt({ outcome: 'ignored', reason: 'no known tenant' });
    if (current.providerEventAt && eventAt < current.providerEventAt) return receipt({ outcome: 'stale', tenantId: current.tenantId });
    const { subscriptionId } = reading.subject;
    if (
      !reading.startsSubscription &&
      current.providerSubscriptionId &&
      subscriptionId &&
      subscriptionId !== current.providerSubscriptionId
    ) {
      return receipt({ outcome: 'ignored', reason: 'another subscription than the tenant’s current one' });
    }
    if (!reading.change) return receipt({ outcome: 'ignored', reason: 'nothing to change' });

    await tx
      .update(subscriptions)
      .set({
        ...reading.change,
        ...pastDueSince(current, reading.change.status, eventAt),
        providerEventAt: eventAt,
        updatedAt: deps.clock.now(),
      })
      .where(eq(subscriptions.tenantId, current.tenantId));
    // The plan sets the tenant's rate limits, cached in every API process.
    invalidate({ kind: 'tenant_plan', id: current.tenantId });
    return receipt({ outcome: 'applied', tenantId: current.tenantId });
  });
}

/** A subscription's grace period starts when it first becomes `past_due`, and ends with any other status. */
function pastDueSince(current: SubscriptionRow, status: SubscriptionRow['status'] | undefined, eventAt: Date) {
  if (status === undefined) return {};
  if (status !== 'past_due') return { pastDueSince: null };
  return { pastDueSince: current.status === 'past_due' ? current.pastDueSince : eventAt };
}

/**
 * The tenant an event names: the tenant reference it carries (which must then be a tenant's
 * id), else the tenant holding its customer.
 */
async function tenantOf(tx: Tx, subject: EventSubject): Promise<string | null> {
  if (subject.tenantReference !== null) return isUuid(subject.tenantReference) ? subject.tenantReference : null;
  if (!subject.customerId) return null;
  const [row] = await tx
    .select({ tenantId: subscriptions.tenantId })
    .from(subscriptions)
    .where(eq(subscriptions.providerCustomerId, subject.customerId))
    .limit(1);
  return row?.tenantId ?? null;
}
