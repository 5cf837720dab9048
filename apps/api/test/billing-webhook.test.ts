import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { billingEvents, subscriptions } from '@agov/db';
import { signedDelivery, stripeEvent } from '../../../test/stripe-api.js';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { signupTenant, TestClock, type Tenant, useTestApp } from './harness.js';

const WEBHOOK_SECRET = 'whsec_test_webhook';
const PRICES = { starter: 'price_starter_monthly', business: 'price_business_monthly' };

const clock = new TestClock();
// No STRIPE_SECRET_KEY: the webhook needs only its signing secret. Tenants' limits are their plans'.
const t = useTestApp({
  clock,
  env: {
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_STARTER: PRICES.starter,
    STRIPE_PRICE_BUSINESS: PRICES.business,
    RATE_LIMIT_EVALUATE: '',
    RATE_LIMIT_READ: '',
    RATE_LIMIT_WRITE: '',
  },
});
const api = client(t);

type StripeEvent = ReturnType<typeof stripeEvent>;

/** A base for `created`, in Unix seconds; each test offsets from it to order its events. */
const T0 = Math.floor(Date.now() / 1000) - 3_600;
const at = (offsetSeconds: number) => T0 + offsetSeconds;
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

const deliver = (event: StripeEvent | object | string, secret = WEBHOOK_SECRET, timestamp?: number) =>
  t.app.inject({ method: 'POST', url: '/api/v1/billing/webhook', ...signedDelivery(secret, event, timestamp) });

async function accept(event: StripeEvent) {
  const response = await deliver(event);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({ received: true });
}

const statusOf = async (tenant: Tenant) => {
  const response = await api.get(tenant.runtimeKey, '/api/v1/billing/status');
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
};

const rowOf = async (tenant: Tenant) =>
  (await t.runtime.database.db.select().from(subscriptions).where(eq(subscriptions.tenantId, tenant.tenantId)))[0]!;

/** What the route logged for each delivery of `event`: its outcomes, in order. */
const outcomesOf = (event: StripeEvent) =>
  t.logs
    .map((line) => JSON.parse(line) as { msg?: string; eventId?: string; outcome?: string })
    .filter((entry) => entry.msg === 'billing event received' && entry.eventId === event.id)
    .map((entry) => entry.outcome);

const checkoutCompleted = (tenant: Tenant, created: number, plan = 'starter', names = { customer: 'cus_1', subscription: 'sub_1' }) =>
  stripeEvent(
    'checkout.session.completed',
    {
      id: `cs_test_${randomUUID().slice(0, 8)}`,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'complete',
      client_reference_id: tenant.tenantId,
      metadata: { tenant_id: tenant.tenantId, plan },
      customer: `${names.customer}_${tenant.tenantId.slice(0, 8)}`,
      subscription: `${names.subscription}_${tenant.tenantId.slice(0, 8)}`,
    },
    created,
  );

/** A Subscription as current API versions write it: the period on its item. */
function subscription(tenant: Tenant, fields: { status?: string; price?: string; cancel?: boolean; periodEnd?: number; id?: string } = {}) {
  return {
    id: `${fields.id ?? 'sub_1'}_${tenant.tenantId.slice(0, 8)}`,
    object: 'subscription',
    customer: `cus_1_${tenant.tenantId.slice(0, 8)}`,
    status: fields.status ?? 'active',
    cancel_at_period_end: fields.cancel ?? false,
    metadata: { tenant_id: tenant.tenantId, plan: 'starter' },
    items: {
      object: 'list',
      data: [
        {
          id: 'si_1',
          object: 'subscription_item',
          price: { id: fields.price ?? PRICES.starter, object: 'price' },
          current_period_end: fields.periodEnd ?? at(30 * 86_400),
        },
      ],
    },
  };
}

const updated = (tenant: Tenant, created: number, fields: Parameters<typeof subscription>[1] = {}) =>
  stripeEvent('customer.subscription.updated', subscription(tenant, fields), created);

/** A tenant that finished a starter checkout at T0 (customer cus_1_…, subscription sub_1_…). */
async function payingTenant(): Promise<Tenant> {
  const tenant = await signupTenant(t.app);
  await accept(checkoutCompleted(tenant, at(0)));
  return tenant;
}

describe('the four provider events', () => {
  it('checkout.session.completed activates the plan from the session and stores the customer and subscription', async () => {
    const tenant = await signupTenant(t.app);
    const before = await statusOf(tenant);

    await accept(checkoutCompleted(tenant, at(0), 'business'));

    expect(await statusOf(tenant)).toEqual({ ...before, plan: 'business', status: 'active', cancel_at_period_end: false });
    expect(await rowOf(tenant)).toMatchObject({
      providerCustomerId: `cus_1_${tenant.tenantId.slice(0, 8)}`,
      providerSubscriptionId: `sub_1_${tenant.tenantId.slice(0, 8)}`,
      providerEventAt: new Date(at(0) * 1000),
    });
  });

  it('customer.subscription.updated synchronizes the plan from the price, cancel_at_period_end and the item’s period end', async () => {
    const tenant = await payingTenant();

    await accept(updated(tenant, at(10), { price: PRICES.business, cancel: true, periodEnd: at(40 * 86_400) }));

    expect(await statusOf(tenant)).toEqual({
      plan: 'business',
      status: 'active',
      current_period_end: iso(at(40 * 86_400)),
      cancel_at_period_end: true,
    });
  });

  it('takes the plan from the subscription’s metadata when the price is not a configured one, and the period from the subscription in older API versions', async () => {
    const tenant = await payingTenant();
    const { items: _items, ...older } = subscription(tenant, {});
    const object = {
      ...older,
      metadata: { tenant_id: tenant.tenantId, plan: 'enterprise' },
      current_period_end: at(365 * 86_400),
      items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_negotiated' } }] },
    };

    await accept(stripeEvent('customer.subscription.updated', object, at(10)));

    expect(await statusOf(tenant)).toEqual({
      plan: 'enterprise',
      status: 'active',
      current_period_end: iso(at(365 * 86_400)),
      cancel_at_period_end: false,
    });
  });

  it.each([
    ['trialing', 'active'],
    ['past_due', 'past_due'],
    ['unpaid', 'past_due'],
    ['incomplete', 'past_due'],
    ['paused', 'past_due'],
    ['canceled', 'canceled'],
    ['incomplete_expired', 'canceled'],
  ])('customer.subscription.updated with Stripe status %s gives status %s', async (stripeStatus, status) => {
    const tenant = await payingTenant();
    await accept(updated(tenant, at(10), { status: stripeStatus }));
    expect((await statusOf(tenant)).status).toBe(status);
  });

  it('customer.subscription.updated with a status Stripe may add later leaves the status as it was', async () => {
    const tenant = await payingTenant();
    await accept(updated(tenant, at(10), { status: 'past_due' }));
    await accept(updated(tenant, at(20), { status: 'some_future_status', price: PRICES.business }));
    expect(await statusOf(tenant)).toMatchObject({ plan: 'business', status: 'past_due' });
  });

  it('customer.subscription.deleted puts the tenant on the free plan, canceled, as of when the subscription ended', async () => {
    const tenant = await payingTenant();
    await accept(updated(tenant, at(10), { cancel: true }));

    await accept(
      stripeEvent(
        'customer.subscription.deleted',
        { ...subscription(tenant, { status: 'canceled', cancel: true }), ended_at: at(20) },
        at(20),
      ),
    );

    expect(await statusOf(tenant)).toEqual({
      plan: 'free',
      status: 'canceled',
      current_period_end: iso(at(20)),
      cancel_at_period_end: false,
    });
  });

  it('invoice.payment_failed makes the status past_due, finding the tenant by its customer alone', async () => {
    const tenant = await payingTenant();
    const invoice = {
      id: 'in_1',
      object: 'invoice',
      customer: `cus_1_${tenant.tenantId.slice(0, 8)}`,
      metadata: {},
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: `sub_1_${tenant.tenantId.slice(0, 8)}`, metadata: {} },
      },
    };

    await accept(stripeEvent('invoice.payment_failed', invoice, at(10)));

    expect(await statusOf(tenant)).toMatchObject({ plan: 'starter', status: 'past_due' });
  });

  it('past_due keeps the paid limits for 14 days from when payment first failed, then the free plan’s; active restores them', async () => {
    const tenant = await signupTenant(t.app);
    await accept(checkoutCompleted(tenant, at(0), 'business'));
    // A key, as sessions end in a week and the clock moves two.
    const readLimit = async () => (await api.get(tenant.runtimeKey, '/api/v1/billing/status')).headers['x-ratelimit-limit'];
    expect(await readLimit()).toBe('60000');

    const failed = () =>
      stripeEvent(
        'invoice.payment_failed',
        {
          id: 'in_1',
          object: 'invoice',
          subscription: `sub_1_${tenant.tenantId.slice(0, 8)}`,
          customer: `cus_1_${tenant.tenantId.slice(0, 8)}`,
        },
        at(10),
      );
    await accept(failed());
    expect(await rowOf(tenant)).toMatchObject({ status: 'past_due', pastDueSince: new Date(at(10) * 1000) });
    const graceEnds = at(10) * 1000 + 14 * 86_400_000;
    try {
      clock.advance(graceEnds - Date.now() - 60_000);
      expect(await readLimit()).toBe('60000');
      // A later failure of the same subscription does not restart the grace period.
      const again = await deliver(failed(), WEBHOOK_SECRET, Math.floor(clock.now().getTime() / 1000));
      expect(again.statusCode, again.body).toBe(200);
      expect((await rowOf(tenant)).pastDueSince).toEqual(new Date(at(10) * 1000));
      clock.advance(2 * 60_000);
      expect(await readLimit()).toBe('600');
      expect(await statusOf(tenant)).toMatchObject({ plan: 'business', status: 'past_due' });
    } finally {
      clock.advance(-clock.now().getTime() + Date.now());
    }

    await accept(updated(tenant, at(20), { status: 'active', price: PRICES.business }));
    expect(await rowOf(tenant)).toMatchObject({ status: 'active', pastDueSince: null });
    expect(await readLimit()).toBe('60000');
  });

  it('invoice.payment_failed in the older API shape finds the tenant by the subscription’s metadata', async () => {
    const tenant = await payingTenant();
    const invoice = {
      id: 'in_2',
      object: 'invoice',
      customer: 'cus_not_stored',
      subscription: `sub_1_${tenant.tenantId.slice(0, 8)}`,
      subscription_details: { metadata: { tenant_id: tenant.tenantId, plan: 'starter' } },
    };

    await accept(stripeEvent('invoice.payment_failed', invoice, at(10)));

    expect((await statusOf(tenant)).status).toBe('past_due');
  });

  it('tells every process that the tenant’s plan changed, so its rate limits follow at once', async () => {
    const tenant = await signupTenant(t.app);
    const plans = t.runtime.deps.caches.tenantPlans;
    plans.set(tenant.tenantId, { plan: 'free', status: 'active', pastDueSince: null }, plans.ticket());

    await accept(checkoutCompleted(tenant, at(0), 'business'));

    expect(plans.get(tenant.tenantId)).toBeUndefined();
  });
});

describe('exactly once, in the provider’s order', () => {
  it('applies a redelivered event once: a replay does not undo what a later event of the same second did', async () => {
    const tenant = await payingTenant();
    const failed = stripeEvent(
      'invoice.payment_failed',
      { customer: `cus_1_${tenant.tenantId.slice(0, 8)}`, subscription: `sub_1_${tenant.tenantId.slice(0, 8)}` },
      at(10),
    );
    await accept(failed);
    await accept(updated(tenant, at(10), { status: 'active' }));

    await accept(failed);

    expect((await statusOf(tenant)).status).toBe('active');
    expect(outcomesOf(failed)).toEqual(['applied', 'duplicate']);
    expect(await t.runtime.database.db.select().from(billingEvents).where(eq(billingEvents.id, failed.id))).toEqual([
      { id: failed.id, type: 'invoice.payment_failed', receivedAt: expect.any(Date) },
    ]);
  });

  it('applies an event delivered 5 times at once exactly once', async () => {
    const tenant = await signupTenant(t.app);
    const event = checkoutCompleted(tenant, at(0), 'business');

    const responses = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));

    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(outcomesOf(event).sort()).toEqual(['applied', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
    expect((await statusOf(tenant)).plan).toBe('business');
    expect(await t.runtime.database.db.select().from(billingEvents).where(eq(billingEvents.id, event.id))).toHaveLength(1);
  });

  it('ends in the newer state when two events of one tenant arrive at once, whichever is applied first', async () => {
    for (let round = 0; round < 5; round += 1) {
      const tenant = await payingTenant();
      const older = updated(tenant, at(10), { price: PRICES.business, periodEnd: at(10 * 86_400) });
      const newer = updated(tenant, at(20), { price: PRICES.business, cancel: true, periodEnd: at(20 * 86_400) });

      // Either may start first; a newer one starting first is the race a missing row lock loses.
      const responses = await Promise.all(round % 2 === 0 ? [deliver(newer), deliver(older)] : [deliver(older), deliver(newer)]);

      expect(responses.map((r) => r.statusCode)).toEqual([200, 200]);
      expect(await statusOf(tenant)).toEqual({
        plan: 'business',
        status: 'active',
        current_period_end: iso(at(20 * 86_400)),
        cancel_at_period_end: true,
      });
      expect(outcomesOf(newer)).toEqual(['applied']);
      expect(['applied', 'stale']).toContain(outcomesOf(older)[0]);
    }
  });

  it('keeps the newer state when an older customer.subscription.updated arrives after it', async () => {
    const tenant = await payingTenant();
    const newer = updated(tenant, at(20), { price: PRICES.business, periodEnd: at(20 * 86_400) });
    const older = updated(tenant, at(10), { price: PRICES.starter, status: 'past_due', cancel: true, periodEnd: at(10 * 86_400) });

    await accept(newer);
    await accept(older);

    expect(await statusOf(tenant)).toEqual({
      plan: 'business',
      status: 'active',
      current_period_end: iso(at(20 * 86_400)),
      cancel_at_period_end: false,
    });
    expect(outcomesOf(older)).toEqual(['stale']);
    expect((await rowOf(tenant)).providerEventAt).toEqual(new Date(at(20) * 1000));
    // Recorded all the same: a retry of it is a duplicate, not a second look.
    expect(await t.runtime.database.db.select().from(billingEvents).where(eq(billingEvents.id, older.id))).toHaveLength(1);
  });

  it('does not reactivate a deleted subscription when its checkout event arrives late', async () => {
    const tenant = await signupTenant(t.app);
    const completed = checkoutCompleted(tenant, at(0));
    await accept(stripeEvent('customer.subscription.deleted', subscription(tenant, { status: 'canceled' }), at(30)));

    await accept(completed);

    expect(await statusOf(tenant)).toMatchObject({ plan: 'free', status: 'canceled' });
  });
});

describe('events that change nothing', () => {
  it.each([
    [
      'an event type it does not handle',
      (tenant: Tenant) => stripeEvent('customer.subscription.created', subscription(tenant, { price: PRICES.business }), at(10)),
      'ignored',
    ],
    [
      'a tenant id that is no tenant',
      (tenant: Tenant) =>
        stripeEvent(
          'customer.subscription.updated',
          { ...subscription(tenant, { price: PRICES.business }), metadata: { tenant_id: randomUUID() } },
          at(10),
        ),
      'ignored',
    ],
    [
      'a tenant id that is not a UUID',
      (tenant: Tenant) =>
        stripeEvent(
          'customer.subscription.updated',
          { ...subscription(tenant, { price: PRICES.business }), metadata: { tenant_id: "1' or '1'='1" } },
          at(10),
        ),
      'ignored',
    ],
    [
      'an unknown customer and no tenant id',
      (tenant: Tenant) =>
        stripeEvent(
          'customer.subscription.updated',
          { ...subscription(tenant, { price: PRICES.business }), metadata: {}, customer: 'cus_stranger' },
          at(10),
        ),
      'ignored',
    ],
    [
      'a subscription other than the tenant’s',
      (tenant: Tenant) => stripeEvent('customer.subscription.deleted', subscription(tenant, { id: 'sub_old' }), at(10)),
      'ignored',
    ],
    [
      'a checkout without a plan in its metadata',
      (tenant: Tenant) =>
        stripeEvent('checkout.session.completed', { client_reference_id: tenant.tenantId, metadata: {}, customer: 'cus_x' }, at(10)),
      'ignored',
    ],
  ])('answers 200 to %s and changes nothing', async (_case, eventFor, outcome) => {
    const tenant = await payingTenant();
    const before = { status: await statusOf(tenant), row: await rowOf(tenant) };
    const event = eventFor(tenant);

    await accept(event);

    expect(await statusOf(tenant)).toEqual(before.status);
    expect(await rowOf(tenant)).toEqual(before.row);
    expect(outcomesOf(event)).toEqual([outcome]);
  });

  it('records no event of a type it does not handle', async () => {
    const event = stripeEvent('charge.succeeded', { id: 'ch_1', object: 'charge' }, at(0));
    await accept(event);
    expect(await t.runtime.database.db.select().from(billingEvents).where(eq(billingEvents.id, event.id))).toEqual([]);
  });
});

describe('signature and body checks', () => {
  const event = () => stripeEvent('invoice.payment_failed', { customer: 'cus_1', subscription: 'sub_1' }, at(0));
  const invalid = (message: string) => ({ error: 'validation_error', message });

  it('answers 400 to a signature made with another secret', async () => {
    expectErrorBody(
      await deliver(event(), 'whsec_someone_else'),
      400,
      invalid('Invalid stripe-signature: No signatures found matching the expected signature for payload.'),
    );
  });

  it('answers 400 to a body changed after signing', async () => {
    const tenant = await payingTenant();
    const delivery = signedDelivery(WEBHOOK_SECRET, checkoutCompleted(tenant, at(10), 'starter'));
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/webhook',
      headers: delivery.headers,
      payload: delivery.payload.replace('"starter"', '"business"'),
    });
    expectErrorBody(response, 400, invalid('Invalid stripe-signature: No signatures found matching the expected signature for payload.'));
    expect((await statusOf(tenant)).plan).toBe('starter');
  });

  it('answers 400 to a signature more than 5 minutes old', async () => {
    expectErrorBody(
      await deliver(event(), WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 301),
      400,
      invalid('Invalid stripe-signature: Timestamp outside the tolerance zone'),
    );
  });

  it('answers 400 without the stripe-signature header, or with one that is not a signature', async () => {
    const payload = JSON.stringify(event());
    const post = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/billing/webhook',
        headers: { 'content-type': 'application/json', ...headers },
        payload,
      });
    expectErrorBody(await post({}), 400, invalid('Missing stripe-signature header'));
    expectErrorBody(
      await post({ 'stripe-signature': 'not-a-signature' }),
      400,
      invalid('Invalid stripe-signature: Unable to extract timestamp and signatures from header'),
    );
  });

  it('answers 400 to malformed JSON, signed or not', async () => {
    expectErrorBody(await deliver('{"id": "evt_1", "type": '), 400, invalid('The signed body is not valid JSON'));
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{"id": ',
    });
    expectErrorBody(unsigned, 400, invalid('Invalid stripe-signature: No signatures found matching the expected signature for payload.'));
  });

  it.each([
    ['an empty object', {}],
    ['an array', [1, 2]],
    ['an event without created', { id: 'evt_1', object: 'event', type: 'invoice.payment_failed', data: { object: {} } }],
    [
      'an event whose id holds a NUL',
      { id: 'evt_\u0000', object: 'event', type: 'invoice.payment_failed', created: at(0), data: { object: {} } },
    ],
  ])('answers 400 to a signed body that is %s', async (_case, body) => {
    expectErrorBody(await deliver(body), 400, invalid('The signed body is not a Stripe event (id, type, created, data)'));
  });

  it('answers 400 to a signed empty body and to another content type', async () => {
    expectErrorBody(await deliver(''), 400, invalid('The signed body is not valid JSON'));
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/webhook',
      headers: { 'content-type': 'text/plain', 'stripe-signature': 't=1,v1=00' },
      payload: 'hello',
    });
    expectErrorBody(text, 400, invalid('Content-Type must be application/json'));
  });

  it('answers 413 to a body over 1 MiB, as every route does', async () => {
    const huge = { ...event(), padding: 'x'.repeat(1_048_576) };
    expectErrorBody(await deliver(huge), 413, { error: 'payload_too_large', message: 'Request body is larger than 1 MiB' });
  });

  it('never logs the signature or the signing secret', async () => {
    await deliver(event(), 'whsec_someone_else');
    const logs = t.logs.join('');
    expect(logs).not.toContain(WEBHOOK_SECRET);
    expect(logs).not.toMatch(/v1=[0-9a-f]{64}/);
  });
});
