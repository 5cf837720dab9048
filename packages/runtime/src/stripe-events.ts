import {
  AppError,
  type BillingEventReading,
  type BillingPort,
  type CheckoutPlan,
  type EventSubject,
  type SubscriptionChange,
  type SubscriptionEventReading,
} from '@agov/domain';

type Plan = NonNullable<SubscriptionChange['plan']>;
type Status = NonNullable<SubscriptionChange['status']>;

/** 9999-12-31T23:59:59Z, the last instant a timestamp column holds as written. */
const LAST_INSTANT_SECONDS = 253_402_300_800;

/** What Stripe's ids look like (`evt_…`, `cus_…`, `sub_…`); anything else is no id of theirs. */
const STRIPE_ID = /^[\w-]{1,255}$/;

/**
 * A Stripe event whose signature checked out, as the domain reads it. The event's own fields
 * are checked (a signed body that is not an event is bad input, not a crash); its object's
 * shape varies with Stripe's API version, so every field of it is read defensively: a missing
 * one is left unchanged, never an error.
 */
export function readStripeEvent(event: unknown, prices: BillingPort['prices']): BillingEventReading {
  const { id, type, created, data } = record(event) ?? {};
  const isEvent =
    typeof id === 'string' &&
    STRIPE_ID.test(id) &&
    typeof type === 'string' &&
    typeof created === 'number' &&
    Number.isSafeInteger(created) &&
    created > 0 &&
    created < LAST_INSTANT_SECONDS &&
    typeof data === 'object' &&
    data !== null;
  if (!isEvent) {
    throw new AppError('validation_error', 'The signed body is not a Stripe event (id, type, created, data)');
  }
  const object = record((data as { object?: unknown }).object) ?? {};
  return { eventId: id, eventType: type, createdAt: new Date(created * 1000), subscription: subscriptionReading(type, object, prices) };
}

/** How Stripe's subscription statuses read in ours; a status not listed leaves ours as it is. */
const STATUS: Readonly<Record<string, Status>> = {
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

const PAID_PLANS: readonly string[] = ['starter', 'business', 'enterprise'] satisfies Plan[];

/** What the four handled types say about a subscription (spec: Subscription status); null for any other type. */
function subscriptionReading(
  type: string,
  object: Record<string, unknown>,
  prices: BillingPort['prices'],
): SubscriptionEventReading | null {
  switch (type) {
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

const paidPlan = (value: unknown): Plan | undefined =>
  typeof value === 'string' && PAID_PLANS.includes(value) ? (value as Plan) : undefined;

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** An object's id, whether Stripe sent the id or the expanded object. */
const idOf = (value: unknown): string | null => {
  const id = text(value) ?? text(record(value)?.id);
  return id !== null && STRIPE_ID.test(id) ? id : null;
};

/** A Stripe list (`{object: 'list', data: [...]}`)'s items. */
const list = (value: unknown): unknown[] => {
  const data = record(value)?.data;
  return Array.isArray(data) ? data : [];
};

/** Unix seconds as a Date, when they are a plausible instant. */
const instant = (value: unknown): Date | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value < LAST_INSTANT_SECONDS
    ? new Date(value * 1000)
    : undefined;

/** The object without its undefined and null fields: what an event does not say stays as it is. */
function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], null | undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null)) as never;
}
