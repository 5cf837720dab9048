import { AppError, type BillingEventReading } from '@agov/domain';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { signedDelivery, stripeEvent } from '../../../test/stripe-api.js';
import { createBilling } from './stripe.js';

const SECRET = 'whsec_unit';
const PRICES = { starter: 'price_starter', business: 'price_business' };
const TENANT = '0b5e3c1e-7d4a-4c1f-9a54-2f3c7a1d9e10';
const CREATED = 1_750_000_000;
const AT_CREATED = new Date(CREATED * 1000);

const billing = createBilling(
  { stripe: { secretKey: null, webhookSecret: SECRET, apiUrl: null, priceStarter: PRICES.starter, priceBusiness: PRICES.business } },
  pino({ level: 'silent' }),
);

/** What the webhook's verifier reads from a delivery of this body, signed as Stripe signs it. */
function read(body: object | string): BillingEventReading {
  const { payload, headers } = signedDelivery(SECRET, body);
  return billing.verifyEvent!(Buffer.from(payload), headers['stripe-signature'], new Date());
}

/** The reading of a handled event: the event's own fields, and what it says about a subscription. */
function readSubscription(type: string, object: Record<string, unknown>) {
  const event = stripeEvent(type, object, CREATED);
  const reading = read(event);
  expect(reading).toMatchObject({ eventId: event.id, eventType: type, createdAt: AT_CREATED });
  return reading.subscription;
}

/** A Subscription as current API versions write it: the period on its item. */
const subscription = (fields: Record<string, unknown> = {}) => ({
  id: 'sub_1',
  object: 'subscription',
  customer: 'cus_1',
  status: 'active',
  cancel_at_period_end: false,
  metadata: { tenant_id: TENANT, plan: 'starter' },
  items: { object: 'list', data: [{ id: 'si_1', price: { id: PRICES.business }, current_period_end: CREATED + 86_400 }] },
  ...fields,
});

const subject = { tenantReference: TENANT, customerId: 'cus_1', subscriptionId: 'sub_1' };

describe('checkout.session.completed', () => {
  it('starts the subscription on the plan of its metadata, with its customer and subscription', () => {
    const session = {
      id: 'cs_1',
      client_reference_id: TENANT,
      metadata: { tenant_id: TENANT, plan: 'business' },
      customer: 'cus_1',
      subscription: 'sub_1',
    };
    expect(readSubscription('checkout.session.completed', session)).toEqual({
      subject,
      change: {
        plan: 'business',
        status: 'active',
        cancelAtPeriodEnd: false,
        providerCustomerId: 'cus_1',
        providerSubscriptionId: 'sub_1',
      },
      startsSubscription: true,
    });
  });

  it('names the tenant by client_reference_id without metadata, and reads expanded objects by their id', () => {
    const session = {
      client_reference_id: TENANT,
      metadata: { plan: 'starter' },
      customer: { id: 'cus_1', object: 'customer' },
      subscription: { id: 'sub_1', object: 'subscription' },
    };
    expect(readSubscription('checkout.session.completed', session)).toEqual({
      subject,
      change: { plan: 'starter', status: 'active', cancelAtPeriodEnd: false, providerCustomerId: 'cus_1', providerSubscriptionId: 'sub_1' },
      startsSubscription: true,
    });
  });

  it.each([
    ['no plan', {}],
    ['the free plan', { plan: 'free' }],
    ['a plan that is none of ours', { plan: 'platinum' }],
  ])('asks for nothing with %s in its metadata', (_case, metadata) => {
    expect(readSubscription('checkout.session.completed', { client_reference_id: TENANT, metadata })).toEqual({
      subject: { tenantReference: TENANT, customerId: null, subscriptionId: null },
      change: null,
      startsSubscription: true,
    });
  });
});

describe('customer.subscription.updated', () => {
  it('takes the plan from a configured price and the period end from the item (current API versions)', () => {
    expect(readSubscription('customer.subscription.updated', subscription({ cancel_at_period_end: true }))).toEqual({
      subject,
      change: {
        plan: 'business',
        status: 'active',
        cancelAtPeriodEnd: true,
        currentPeriodEnd: new Date((CREATED + 86_400) * 1000),
        providerCustomerId: 'cus_1',
        providerSubscriptionId: 'sub_1',
      },
      startsSubscription: false,
    });
  });

  it('takes the plan from the metadata for a price not configured, and the period end from the subscription (older API versions)', () => {
    const older = subscription({
      metadata: { tenant_id: TENANT, plan: 'enterprise' },
      current_period_end: CREATED + 365 * 86_400,
      items: { object: 'list', data: [{ id: 'si_1', price: 'price_negotiated' }] },
    });
    expect(readSubscription('customer.subscription.updated', older)).toEqual({
      subject,
      change: {
        plan: 'enterprise',
        status: 'active',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: new Date((CREATED + 365 * 86_400) * 1000),
        providerCustomerId: 'cus_1',
        providerSubscriptionId: 'sub_1',
      },
      startsSubscription: false,
    });
  });

  it.each([
    ['active', 'active'],
    ['trialing', 'active'],
    ['past_due', 'past_due'],
    ['unpaid', 'past_due'],
    ['incomplete', 'past_due'],
    ['paused', 'past_due'],
    ['canceled', 'canceled'],
    ['incomplete_expired', 'canceled'],
  ])('reads Stripe status %s as %s', (stripeStatus, status) => {
    expect(readSubscription('customer.subscription.updated', subscription({ status: stripeStatus }))?.change).toMatchObject({ status });
  });

  it('leaves out what the subscription does not say, or says in a form it cannot have', () => {
    const sparse = {
      id: 'sub_1',
      status: 'some_future_status',
      cancel_at_period_end: 'yes',
      customer: 'cus 1',
      metadata: { tenant_id: '' },
      current_period_end: 1e20,
      items: { data: [{ current_period_end: -1 }] },
    };
    expect(readSubscription('customer.subscription.updated', sparse)).toEqual({
      subject: { tenantReference: null, customerId: null, subscriptionId: 'sub_1' },
      change: { providerSubscriptionId: 'sub_1' },
      startsSubscription: false,
    });
  });
});

describe('customer.subscription.deleted', () => {
  it('puts the tenant on the free plan, canceled, as of when the subscription ended', () => {
    expect(readSubscription('customer.subscription.deleted', subscription({ status: 'canceled', ended_at: CREATED }))).toEqual({
      subject,
      change: { plan: 'free', status: 'canceled', cancelAtPeriodEnd: false, currentPeriodEnd: AT_CREATED },
      startsSubscription: false,
    });
  });

  it('leaves the period end as it was when the subscription does not say when it ended', () => {
    expect(readSubscription('customer.subscription.deleted', subscription({ status: 'canceled' }))?.change).toEqual({
      plan: 'free',
      status: 'canceled',
      cancelAtPeriodEnd: false,
    });
  });
});

describe('invoice.payment_failed', () => {
  it('finds the subscription and its tenant under `parent` (current API versions)', () => {
    const invoice = {
      id: 'in_1',
      customer: 'cus_1',
      metadata: {},
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_1', metadata: { tenant_id: TENANT } } },
    };
    expect(readSubscription('invoice.payment_failed', invoice)).toEqual({
      subject,
      change: { status: 'past_due' },
      startsSubscription: false,
    });
  });

  it('finds them at the top of the invoice (older API versions)', () => {
    const invoice = { id: 'in_1', customer: 'cus_1', subscription: 'sub_1', subscription_details: { metadata: { tenant_id: TENANT } } };
    expect(readSubscription('invoice.payment_failed', invoice)).toEqual({
      subject,
      change: { status: 'past_due' },
      startsSubscription: false,
    });
  });

  it('names the customer alone when the subscription carries no tenant', () => {
    const invoice = { id: 'in_1', customer: 'cus_1', parent: { subscription_details: { subscription: 'sub_1' } } };
    expect(readSubscription('invoice.payment_failed', invoice)).toEqual({
      subject: { tenantReference: null, customerId: 'cus_1', subscriptionId: 'sub_1' },
      change: { status: 'past_due' },
      startsSubscription: false,
    });
  });

  it('asks for nothing for a one-off invoice, which belongs to no subscription', () => {
    expect(readSubscription('invoice.payment_failed', { id: 'in_1', customer: 'cus_1', metadata: { tenant_id: TENANT } })).toEqual({
      subject: { tenantReference: TENANT, customerId: 'cus_1', subscriptionId: null },
      change: null,
      startsSubscription: false,
    });
  });
});

describe('any other event', () => {
  it.each(['customer.subscription.created', 'charge.succeeded', 'invoice.paid'])('reads %s as about no subscription', (type) => {
    const event = stripeEvent(type, subscription(), CREATED);
    expect(read(event)).toEqual({ eventId: event.id, eventType: type, createdAt: AT_CREATED, subscription: null });
  });
});

describe('a signed body that is not an event', () => {
  it.each([
    ['an empty object', {}],
    ['an array', [1, 2]],
    ['an event without created', { id: 'evt_1', type: 'invoice.payment_failed', data: { object: {} } }],
    ['an event created at no plausible instant', { id: 'evt_1', type: 'invoice.payment_failed', created: 1e13, data: { object: {} } }],
    ['an event whose id is not Stripe’s', { id: 'evt 1', type: 'invoice.payment_failed', created: CREATED, data: { object: {} } }],
    ['an event without data', { id: 'evt_1', type: 'invoice.payment_failed', created: CREATED }],
  ])('is refused as bad input: %s', (_case, body) => {
    expect(() => read(body)).toThrow(new AppError('validation_error', 'The signed body is not a Stripe event (id, type, created, data)'));
  });

  it('reads an event without its object as saying nothing of its subscription', () => {
    const reading = read({ id: 'evt_1', type: 'customer.subscription.deleted', created: CREATED, data: {} });
    expect(reading.subscription).toEqual({
      subject: { tenantReference: null, customerId: null, subscriptionId: null },
      change: { plan: 'free', status: 'canceled', cancelAtPeriodEnd: false },
      startsSubscription: false,
    });
  });
});
