import { getSubscription, openPortal, presentSubscription, receiveProviderEvent, startCheckout } from '@agov/domain';
import { ACCESS, PUBLIC } from '../../access.js';
import { noBody } from '../../plugins/validation.js';
import { CheckoutBody, EventAcknowledged, HostedPage, Subscription } from '../../schemas/billing.js';
import { Data } from '../../schemas/common.js';
import type { Routes } from '../types.js';

/** The tenant's subscription through Stripe: checkout, portal, status, and Stripe's webhook. */
export const billingRoutes: Routes = async (app, { deps }) => {
  const tags = ['billing'];

  app.post(
    '/billing/checkout',
    {
      config: { access: ACCESS.billingManage },
      schema: { operationId: 'startCheckout', tags, body: CheckoutBody, response: { 200: HostedPage } },
    },
    async (request) => startCheckout(deps, request.principal, request.body.plan),
  );

  app.post(
    '/billing/portal',
    {
      config: { access: ACCESS.billingManage },
      preValidation: noBody,
      schema: { operationId: 'openBillingPortal', tags, response: { 200: HostedPage } },
    },
    async (request) => openPortal(deps, request.principal),
  );

  app.get(
    '/billing/status',
    { config: { access: ACCESS.anyCredential }, schema: { operationId: 'getSubscription', tags, response: { 200: Data(Subscription) } } },
    async (request) => ({
      data: presentSubscription(await getSubscription(deps, request.principal)),
    }),
  );

  // The signature covers the exact bytes Stripe sent, so this route alone reads its body, JSON only, as a raw Buffer.
  await app.register(async (signed) => {
    signed.removeAllContentTypeParsers();
    signed.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    signed.post(
      '/billing/webhook',
      // The provider calls from its own addresses for every tenant and retries what it is refused;
      // its signature, not a per-address allowance, is what admits it.
      {
        config: { access: PUBLIC, rateLimit: false },
        schema: { operationId: 'receiveBillingEvent', tags, response: { 200: EventAcknowledged } },
      },
      async (request) => {
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers['stripe-signature'];
        const receipt = await receiveProviderEvent(deps, rawBody, typeof signature === 'string' ? signature : undefined);
        request.log.info(receipt, 'billing event received');
        return { received: true };
      },
    );
  });
};
