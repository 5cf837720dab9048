import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, signedDelivery, startFakeStripe, stripeEvent } from '../../../test/stripe-api.js';
import { expectErrorBody, FORBIDDEN, expectInvalidBody, ISO_TIME } from './assertions.js';
import { client } from './client.js';
import { keyWithScopes, sessionWithRole, signupTenant, type Tenant, useTestApp } from './harness.js';

const PUBLIC_URL = 'https://governance.example.com';
const WEBHOOK_SECRET = 'whsec_test_sessions';
const SECRET_KEY = 'sk_test_sessions_0123456789';

let stripe: FakeStripe;
beforeAll(async () => {
  stripe = await startFakeStripe();
});
afterAll(() => stripe.close());
const t = useTestApp(() => ({
  env: {
    PUBLIC_URL,
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_STARTER: 'price_starter_monthly',
    STRIPE_PRICE_BUSINESS: 'price_business_monthly',
    STRIPE_API_URL: stripe.url,
  },
}));
const api = client(t);

const lastCall = () => stripe.calls.at(-1)!;

/** What Stripe's webhook reports once the tenant paid a checkout: it now has a customer. */
async function completeCheckout(tenant: Tenant, plan: string, customer: string, subscription: string, created: number) {
  const session = {
    id: `cs_test_${customer}`,
    object: 'checkout.session',
    mode: 'subscription',
    client_reference_id: tenant.tenantId,
    metadata: { tenant_id: tenant.tenantId, plan },
    customer,
    subscription,
  };
  const delivery = signedDelivery(WEBHOOK_SECRET, stripeEvent('checkout.session.completed', session, created));
  const response = await t.app.inject({ method: 'POST', url: '/api/v1/billing/webhook', ...delivery });
  expect(response.statusCode, response.body).toBe(200);
}

async function endSubscription(tenant: Tenant, subscription: string, created: number) {
  const object = {
    id: subscription,
    object: 'subscription',
    status: 'canceled',
    metadata: { tenant_id: tenant.tenantId },
    ended_at: created,
  };
  const delivery = signedDelivery(WEBHOOK_SECRET, stripeEvent('customer.subscription.deleted', object, created));
  const response = await t.app.inject({ method: 'POST', url: '/api/v1/billing/webhook', ...delivery });
  expect(response.statusCode, response.body).toBe(200);
}

const now = () => Math.floor(Date.now() / 1000);

describe('POST /billing/checkout', () => {
  it('opens a Checkout Session in subscription mode for the plan, carrying the tenant and the admin’s e-mail', async () => {
    const tenant = await signupTenant(t.app);
    const response = await api.post(tenant.admin, '/api/v1/billing/checkout', { plan: 'starter' });

    expect(response.statusCode, response.body).toBe(200);
    const call = lastCall();
    const id = response.json().url.split('/').pop();
    expect(response.json()).toEqual({ url: `https://checkout.stripe.test/c/pay/${id}` });
    expect(call).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    expect(call.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(call.params).toEqual({
      mode: 'subscription',
      'line_items[0][price]': 'price_starter_monthly',
      'line_items[0][quantity]': '1',
      client_reference_id: tenant.tenantId,
      'metadata[tenant_id]': tenant.tenantId,
      'metadata[plan]': 'starter',
      'subscription_data[metadata][tenant_id]': tenant.tenantId,
      'subscription_data[metadata][plan]': 'starter',
      customer_email: tenant.email,
      success_url: `${PUBLIC_URL}/settings/billing?checkout=success`,
      cancel_url: `${PUBLIC_URL}/settings/billing?checkout=canceled`,
    });
  });

  it('reuses the tenant’s Stripe customer once it has one, instead of the e-mail', async () => {
    const tenant = await signupTenant(t.app);
    await completeCheckout(tenant, 'starter', 'cus_returning', 'sub_first', now() - 60);
    await endSubscription(tenant, 'sub_first', now() - 30);

    const response = await api.post(tenant.admin, '/api/v1/billing/checkout', { plan: 'business' });

    expect(response.statusCode, response.body).toBe(200);
    expect(lastCall().params).toEqual({
      mode: 'subscription',
      'line_items[0][price]': 'price_business_monthly',
      'line_items[0][quantity]': '1',
      client_reference_id: tenant.tenantId,
      'metadata[tenant_id]': tenant.tenantId,
      'metadata[plan]': 'business',
      'subscription_data[metadata][tenant_id]': tenant.tenantId,
      'subscription_data[metadata][plan]': 'business',
      customer: 'cus_returning',
      success_url: `${PUBLIC_URL}/settings/billing?checkout=success`,
      cancel_url: `${PUBLIC_URL}/settings/billing?checkout=canceled`,
    });
  });

  it('refuses a second subscription while the tenant is on a paid plan: 409, and Stripe is not called', async () => {
    const tenant = await signupTenant(t.app);
    await completeCheckout(tenant, 'starter', 'cus_paying', 'sub_paying', now());
    const calls = stripe.calls.length;

    const response = await api.post(tenant.admin, '/api/v1/billing/checkout', { plan: 'business' });

    expectErrorBody(response, 409, {
      error: 'conflict',
      message: 'This tenant is on the starter plan: change or cancel it in the billing portal',
    });
    expect(stripe.calls).toHaveLength(calls);
  });

  it.each([
    ['an unknown plan', { plan: 'enterprise' }, [['plan', 'must be equal to one of the allowed values']]],
    ['no plan', {}, [['plan', 'is required']]],
    ['an extra field', { plan: 'starter', price: 'price_free' }, [['price', 'is not allowed']]],
  ] as const)('answers 400 to %s, calling nobody', async (_case, payload, problems) => {
    const tenant = await signupTenant(t.app);
    const calls = stripe.calls.length;
    expectInvalidBody(await api.post(tenant.admin, '/api/v1/billing/checkout', payload), problems);
    expect(stripe.calls).toHaveLength(calls);
  });

  it('answers 503 without leaking the key when Stripe fails, and creates nothing', async () => {
    const tenant = await signupTenant(t.app);
    stripe.failNext(400);

    const response = await api.post(tenant.admin, '/api/v1/billing/checkout', { plan: 'starter' });

    expectErrorBody(response, 503, {
      error: 'service_unavailable',
      message: 'The payment provider could not be reached; try again shortly',
    });
    expect(t.logs.join('')).not.toContain(SECRET_KEY);
    expect((await api.get(tenant.admin, '/api/v1/billing/status')).json().data).toMatchObject({ plan: 'free', status: 'active' });
  });
});

describe('POST /billing/portal', () => {
  it('opens the customer portal for the tenant’s Stripe customer, returning to the billing page', async () => {
    const tenant = await signupTenant(t.app);
    await completeCheckout(tenant, 'business', 'cus_portal', 'sub_portal', now());

    const response = await api.post(tenant.admin, '/api/v1/billing/portal');

    expect(response.statusCode, response.body).toBe(200);
    const call = lastCall();
    expect(response.json()).toEqual({ url: `https://billing.stripe.test/p/session/${response.json().url.split('/').pop()}` });
    expect(call).toMatchObject({ method: 'POST', path: '/v1/billing_portal/sessions' });
    expect(call.params).toEqual({ customer: 'cus_portal', return_url: `${PUBLIC_URL}/settings/billing` });
  });

  it('answers 409 while the tenant has no Stripe customer yet', async () => {
    const tenant = await signupTenant(t.app);
    expectErrorBody(await api.post(tenant.admin, '/api/v1/billing/portal'), 409, {
      error: 'conflict',
      message: 'No billing account yet: start a checkout first',
    });
  });

  it('takes no body', async () => {
    const tenant = await signupTenant(t.app);
    expectErrorBody(await api.post(tenant.admin, '/api/v1/billing/portal', { customer: 'cus_someone_else' }), 400, {
      error: 'validation_error',
      message: 'This endpoint takes no body',
      details: { fields: [{ field: 'customer', message: 'is not allowed' }] },
    });
  });
});

describe('GET /billing/status', () => {
  it('shows a new tenant on the free plan, active, to any key and any session', async () => {
    const tenant = await signupTenant(t.app);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const expected = { data: { plan: 'free', status: 'active', current_period_end: ISO_TIME, cancel_at_period_end: false } };

    for (const credential of [tenant.runtimeKey, await keyWithScopes(t.app, tenant, ['agents:read']), viewer, tenant.admin]) {
      const response = await api.get(credential, '/api/v1/billing/status');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual(expected);
    }
  });

  it('shows only the caller’s own tenant', async () => {
    const paying = await signupTenant(t.app);
    const other = await signupTenant(t.app);
    await completeCheckout(paying, 'business', 'cus_own', 'sub_own', now());

    expect((await api.get(paying.runtimeKey, '/api/v1/billing/status')).json().data.plan).toBe('business');
    expect((await api.get(other.runtimeKey, '/api/v1/billing/status')).json().data.plan).toBe('free');
  });
});

describe('access', () => {
  it.each(['/api/v1/billing/checkout', '/api/v1/billing/portal'])(
    '%s admits admin sessions only: 403 for other roles and any API key',
    async (url) => {
      const tenant = await signupTenant(t.app);
      const payload = url.endsWith('checkout') ? { plan: 'starter' } : undefined;
      const refused = [
        await sessionWithRole(t.app, tenant, 'reviewer'),
        await sessionWithRole(t.app, tenant, 'viewer'),
        await keyWithScopes(t.app, tenant, ['admin']),
        tenant.runtimeKey,
      ];
      const calls = stripe.calls.length;
      for (const credential of refused) {
        expectErrorBody(await api.post(credential, url, payload), 403, FORBIDDEN);
      }
      expect((await api.post(null, url, payload)).statusCode).toBe(401);
      expect(stripe.calls).toHaveLength(calls);
    },
  );
});

describe('without Stripe configured', () => {
  const bare = useTestApp();
  const starterOnly = useTestApp(() => ({
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_PRICE_STARTER: 'price_starter_monthly', STRIPE_API_URL: stripe.url },
  }));

  it('answers 501 billing_not_configured to checkout and portal, while status still shows the free plan', async () => {
    const tenant = await signupTenant(bare.app);
    const bareApi = client(bare);
    const notConfigured = { error: 'billing_not_configured', message: 'Payment provider not configured' };

    expectErrorBody(await bareApi.post(tenant.admin, '/api/v1/billing/checkout', { plan: 'starter' }), 501, notConfigured);
    expectErrorBody(await bareApi.post(tenant.admin, '/api/v1/billing/portal'), 501, notConfigured);
    const status = await bareApi.get(tenant.runtimeKey, '/api/v1/billing/status');
    expect(status.statusCode).toBe(200);
    expect(status.json()).toEqual({ data: { plan: 'free', status: 'active', current_period_end: ISO_TIME, cancel_at_period_end: false } });
  });

  it('answers 501 to the webhook without STRIPE_WEBHOOK_SECRET, so that Stripe keeps retrying until it is set', async () => {
    const delivery = signedDelivery('whsec_anything', stripeEvent('invoice.payment_failed', {}, now()));
    expectErrorBody(await bare.app.inject({ method: 'POST', url: '/api/v1/billing/webhook', ...delivery }), 501, {
      error: 'billing_not_configured',
      message: 'Billing webhook not configured: STRIPE_WEBHOOK_SECRET is unset',
    });
  });

  it('answers 501 to a checkout for a plan whose price is not configured', async () => {
    const tenant = await signupTenant(starterOnly.app);
    const calls = stripe.calls.length;
    expectErrorBody(await client(starterOnly).post(tenant.admin, '/api/v1/billing/checkout', { plan: 'business' }), 501, {
      error: 'billing_not_configured',
      message: 'The business plan has no price configured',
    });
    expect(stripe.calls).toHaveLength(calls);
  });
});
