import type { BillingPort, CheckoutPlan, ProviderEvent } from './provider.js';
import type { SubscriptionRow } from '@agov/db';

/** The provider events that move a subscription (spec: Subscription status); others change nothing. */
export const HANDLED_EVENT_TYPES = [
  'checkout.session.completed',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.payment_failed',
] as const;

/** Who an event is about, as the event names them. */
export interface EventSubject {
  /** `metadata.tenant_id`, else `client_reference_id`: unchecked text from the event. */
  tenantReference: string | null;
  customerId: string | null;
  subscriptionId: string | null;
}

export type SubscriptionChange = Partial<
  Pick<SubscriptionRow, 'plan' | 'status' | 'currentPeriodEnd' | 'cancelAtPeriodEnd' | 'providerCustomerId' | 'providerSubscriptionId'>
>;

export interface EventReading {
  subject: EventSubject;
  /** What the event asks to change; null when it asks for nothing (a session that is not one of ours). */
  change: SubscriptionChange | null;
  /** A completed checkout starts a new subscription; other events concern the tenant's current one. */
  startsSubscription: boolean;
}

/** How the provider's subscription statuses read in ours; a status not listed leaves ours as it is. */
const STATUS: Readonly<Record<string, SubscriptionRow['status']>> = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  // Payment is needed before the subscription runs: the first one failed, or a trial ended without a card.
  incomplete: 'past_due',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
};

const PAID_PLANS: readonly string[] = ['starter', 'business', 'enterprise'] satisfies SubscriptionRow['plan'][];

/**
 * What a handled event says about the tenant's subscription, or null for any other type. The
 * payload's signature was checked, but its shape varies with the provider's API version, so
 * every field is read defensively: a missing one is left unchanged, never an error.
 */
export function readProviderEvent(event: ProviderEvent, prices: BillingPort['prices']): EventReading | null {
  const object = record(event.object) ?? {};
  switch (event.type) {
    case 'checkout.session.completed': {
      const plan = paidPlan(record(object.metadata)?.plan);
      return {
        subject: {
          tenantReference: text(record(object.metadata)?.tenant_id) ?? text(object.client_reference_id),
          customerId: idOf(object.customer),
          subscriptionId: idOf(object.subscription),
        },
        change: plan
          ? {
              plan,
              status: 'active',
              cancelAtPeriodEnd: false,
              ...defined({ providerCustomerId: idOf(object.customer), providerSubscriptionId: idOf(object.subscription) }),
            }
          : null,
        startsSubscription: true,
      };
    }
    case 'customer.subscription.updated': {
      const item = record(list(object.items)[0]);
      return {
        subject: subscriptionSubject(object),
        change: defined({
          plan: planOfPrice(idOf(item?.price), prices) ?? paidPlan(record(object.metadata)?.plan),
          status: STATUS[text(object.status) ?? ''],
          cancelAtPeriodEnd: typeof object.cancel_at_period_end === 'boolean' ? object.cancel_at_period_end : undefined,
          // On the item in current API versions, on the subscription itself in older ones.
          currentPeriodEnd: instant(item?.current_period_end) ?? instant(object.current_period_end),
          providerCustomerId: idOf(object.customer),
          providerSubscriptionId: idOf(object.id),
        }),
        startsSubscription: false,
      };
    }
    case 'customer.subscription.deleted':
      return {
        subject: subscriptionSubject(object),
        change: {
          plan: 'free',
          status: 'canceled',
          cancelAtPeriodEnd: false,
          // When the paid subscription ended.
          ...defined({ currentPeriodEnd: instant(object.ended_at) }),
        },
        startsSubscription: false,
      };
    case 'invoice.payment_failed': {
      // The subscription's details sit under `parent` in current API versions, at the top in older ones.
      const details = record(record(object.parent)?.subscription_details) ?? record(object.subscription_details);
      const subscriptionId = idOf(details?.subscription) ?? idOf(object.subscription);
      return {
        subject: {
          tenantReference: text(record(details?.metadata)?.tenant_id) ?? text(record(object.metadata)?.tenant_id),
          customerId: idOf(object.customer),
          subscriptionId,
        },
        // A one-off invoice is no subscription's business.
        change: subscriptionId ? { status: 'past_due' } : null,
        startsSubscription: false,
      };
    }
    default:
      return null;
  }
}

const subscriptionSubject = (subscription: Record<string, unknown>): EventSubject => ({
  tenantReference: text(record(subscription.metadata)?.tenant_id),
  customerId: idOf(subscription.customer),
  subscriptionId: idOf(subscription.id),
});

function planOfPrice(priceId: string | null, prices: BillingPort['prices']): CheckoutPlan | undefined {
  if (!priceId) return undefined;
  return (Object.keys(prices) as CheckoutPlan[]).find((plan) => prices[plan] === priceId);
}

const paidPlan = (value: unknown): SubscriptionRow['plan'] | undefined =>
  typeof value === 'string' && PAID_PLANS.includes(value) ? (value as SubscriptionRow['plan']) : undefined;

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** What the provider's ids look like (`cus_…`, `sub_…`); anything else is no id of theirs. */
const PROVIDER_ID = /^[\w-]{1,255}$/;

/** An object's id, whether the provider sent the id or the expanded object. */
const idOf = (value: unknown): string | null => {
  const id = text(value) ?? text(record(value)?.id);
  return id !== null && PROVIDER_ID.test(id) ? id : null;
};

/** A provider list (`{object: 'list', data: [...]}`)'s items. */
const list = (value: unknown): unknown[] => {
  const data = record(value)?.data;
  return Array.isArray(data) ? data : [];
};

/** Unix seconds as a Date, when they are a plausible instant. */
const instant = (value: unknown): Date | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value < 253_402_300_800 ? new Date(value * 1000) : undefined;

/** The object without its undefined and null fields: what an event does not say stays as it is. */
function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], null | undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null)) as never;
}
