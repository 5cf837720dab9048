import type { Principal } from '../access/access.js';
import type { BillingDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import type { SendResult } from '../support/send-result.js';
import type { CheckoutPlan, HostedPage, PaymentProvider } from './provider.js';
import { tenantSubscription } from './status.js';

/** The dashboard page people return to from the provider's hosted pages. */
const billingPage = (deps: BillingDeps) => `${deps.publicUrl}/settings/billing`;

/**
 * A hosted checkout for a subscription to `plan`. The session carries the tenant and the
 * plan, also into the subscription it creates, so that the provider's events find the
 * tenant again (see events.ts).
 */
export async function startCheckout(deps: BillingDeps, principal: Principal, plan: CheckoutPlan): Promise<HostedPage> {
  const provider = configuredProvider(deps);
  const priceId = deps.billing.prices[plan];
  if (!priceId) throw new AppError('billing_not_configured', `The ${plan} plan has no price configured`);
  const subscription = await tenantSubscription(deps, principal.tenantId);
  // A second checkout would start a second subscription, billed alongside the first.
  if (subscription.plan !== 'free') {
    throw new AppError('conflict', `This tenant is on the ${subscription.plan} plan: change or cancel it in the billing portal`);
  }
  const page = await provider.createCheckoutSession({
    tenantId: principal.tenantId,
    plan,
    priceId,
    customerId: subscription.providerCustomerId,
    email: principal.kind === 'session' ? (principal.user?.email ?? null) : null,
    successUrl: `${billingPage(deps)}?checkout=success`,
    cancelUrl: `${billingPage(deps)}?checkout=canceled`,
  });
  return hostedPage(page);
}

/** The provider's customer portal (plan changes, payment methods, invoices, cancellation). */
export async function openPortal(deps: BillingDeps, principal: Principal): Promise<HostedPage> {
  const provider = configuredProvider(deps);
  const { providerCustomerId } = await tenantSubscription(deps, principal.tenantId);
  if (!providerCustomerId) throw new AppError('conflict', 'No billing account yet: start a checkout first');
  return hostedPage(await provider.createPortalSession({ customerId: providerCustomerId, returnUrl: billingPage(deps) }));
}

/** The page to send the user to; a provider that failed is worth another try shortly, so 503. */
function hostedPage(page: SendResult<HostedPage>): HostedPage {
  if (!page.ok) throw new AppError('service_unavailable', `${page.error}; try again shortly`);
  return { url: page.url };
}

function configuredProvider(deps: BillingDeps): PaymentProvider {
  if (!deps.billing.provider) throw new AppError('billing_not_configured', 'Payment provider not configured');
  return deps.billing.provider;
}
