import type { Config } from '@agov/config';
import {
  AppError,
  type BillingPort,
  type HostedPage,
  type PaymentProvider,
  type ProviderEventVerifier,
  type SendResult,
} from '@agov/domain';
import type { Logger } from 'pino';
import Stripe from 'stripe';
import { readStripeEvent } from './stripe-events.js';

/** How old a signed delivery may be, as Stripe's own default: replays of older ones are refused. */
const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Each call to Stripe's API; a request waiting on it has its own, longer limit. */
const CALL_TIMEOUT_MS = 10_000;

/**
 * Billing's outside world through Stripe's SDK, the one file that imports it: the API client
 * when `STRIPE_SECRET_KEY` is set (at `STRIPE_API_URL` when given), the webhook's signature
 * check and the reading of its events when `STRIPE_WEBHOOK_SECRET` is set, and the configured
 * prices.
 */
export function createBilling(config: Pick<Config, 'stripe'>, logger: Logger): BillingPort {
  const { secretKey, webhookSecret, apiUrl, priceStarter, priceBusiness } = config.stripe;
  const prices = { starter: priceStarter, business: priceBusiness };
  return {
    provider: secretKey ? stripeProvider(new Stripe(secretKey, clientOptions(apiUrl)), logger) : null,
    verifyEvent: webhookSecret ? eventVerifier(webhookSecret, prices) : null,
    prices,
  };
}

function clientOptions(apiUrl: string | null): Stripe.StripeConfig {
  // The SDK retries network failures and 5xx with idempotency keys, so a retry never makes a second session.
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, timeout: CALL_TIMEOUT_MS, telemetry: false };
  if (!apiUrl) return options;
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { ...options, protocol, host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443) };
}

function stripeProvider(stripe: Stripe, logger: Logger): PaymentProvider {
  return {
    async createCheckoutSession(request) {
      const tenant = { tenant_id: request.tenantId, plan: request.plan };
      return hostedPage(logger, 'checkout.sessions.create', () =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          line_items: [{ price: request.priceId, quantity: 1 }],
          client_reference_id: request.tenantId,
          metadata: tenant,
          subscription_data: { metadata: tenant },
          ...(request.customerId ? { customer: request.customerId } : request.email ? { customer_email: request.email } : {}),
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
        }),
      );
    },
    async createPortalSession(request) {
      return hostedPage(logger, 'billingPortal.sessions.create', () =>
        stripe.billingPortal.sessions.create({ customer: request.customerId, return_url: request.returnUrl }),
      );
    },
  };
}

/**
 * Runs one API call that creates a session and answers its hosted page. A failure is logged by
 * Stripe's error type and code (never a key); what the user is told names neither.
 */
async function hostedPage(logger: Logger, method: string, create: () => Promise<{ url?: string | null }>): Promise<SendResult<HostedPage>> {
  let session: { url?: string | null };
  try {
    session = await create();
  } catch (error) {
    const stripeError = error instanceof Stripe.errors.StripeError ? error : null;
    logger.warn(
      { method, type: stripeError?.type, code: stripeError?.code, statusCode: stripeError?.statusCode, requestId: stripeError?.requestId },
      'stripe call failed',
    );
    return { ok: false, error: 'The payment provider could not be reached' };
  }
  if (session.url) return { ok: true, url: session.url };
  logger.warn({ method }, 'stripe answered without a url');
  return { ok: false, error: 'The payment provider answered without a page to open' };
}

/** Checks a delivery's signature, then reads its event (see stripe-events.ts). */
function eventVerifier(secret: string, prices: BillingPort['prices']): ProviderEventVerifier {
  return (rawBody, signature, receivedAt) => {
    if (!signature) throw new AppError('validation_error', 'Missing stripe-signature header');
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, secret, SIGNATURE_TOLERANCE_SECONDS, undefined, receivedAt.getTime());
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw new AppError('validation_error', `Invalid stripe-signature: ${firstSentence(error.message)}`);
      }
      // Signed, but not JSON: only whoever holds the secret can send it, and it is still bad input.
      throw new AppError('validation_error', 'The signed body is not valid JSON');
    }
    return readStripeEvent(event, prices);
  };
}

/** Stripe's messages go on with advice for integrators; the first sentence names the problem. */
const firstSentence = (message: string) => message.split(/(?<=\.)\s|\n/)[0]!.trim();
