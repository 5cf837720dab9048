import type { subscriptions } from '@agov/db';
import type { SendResult } from '../support/send-result.js';
import type { BillingEventReading } from './events.js';

/** The plans a checkout can buy; enterprise is arranged by hand. */
export const CHECKOUT_PLANS = ['starter', 'business'] as const satisfies readonly (typeof subscriptions.$inferSelect)['plan'][];
export type CheckoutPlan = (typeof CHECKOUT_PLANS)[number];

/** A hosted checkout for a subscription to one price, as the payment provider is asked for it. */
export interface CheckoutSessionRequest {
  tenantId: string;
  plan: CheckoutPlan;
  priceId: string;
  /** The tenant's provider customer when one exists; otherwise the provider creates one from `email`. */
  customerId: string | null;
  email: string | null;
  successUrl: string;
  cancelUrl: string;
}

/**
 * The payment provider's API (Stripe), as the domain uses it: each call answers the hosted
 * page to send the user to. A failure's `error` is a sentence for the user (what went wrong,
 * naming no secret); the adapter logs the provider's own details.
 */
export interface PaymentProvider {
  createCheckoutSession(request: CheckoutSessionRequest): Promise<SendResult<HostedPage>>;
  createPortalSession(request: { customerId: string; returnUrl: string }): Promise<SendResult<HostedPage>>;
}

export interface HostedPage {
  url: string;
}

/**
 * Checks the signature of an event delivery on its raw body and reads the event. Throws an
 * `AppError` (`validation_error`) when the signature is missing, wrong or older than 5 minutes
 * at `receivedAt`, or the body is not an event.
 */
export type ProviderEventVerifier = (rawBody: Buffer, signature: string | undefined, receivedAt: Date) => BillingEventReading;

/** Billing's outside world, built by the runtime from the STRIPE_* configuration. */
export interface BillingPort {
  /** null without `STRIPE_SECRET_KEY`: checkout and portal answer 501. */
  readonly provider: PaymentProvider | null;
  /** null without `STRIPE_WEBHOOK_SECRET`: the billing webhook answers 501. */
  readonly verifyEvent: ProviderEventVerifier | null;
  /** The provider's price id of each plan a checkout can buy; null = that plan is not sold. */
  readonly prices: Readonly<Record<CheckoutPlan, string | null>>;
}
