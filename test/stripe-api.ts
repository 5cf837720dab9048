import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** One call the SDK made, with its form-encoded parameters as sent (`metadata[plan]` → value). */
export interface StripeCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  params: Record<string, string>;
}

export interface FakeStripe {
  /** For `STRIPE_API_URL`. */
  url: string;
  calls: StripeCall[];
  /** The next `count` calls are answered with this status and Stripe's error body. */
  failNext(status: number, count?: number): void;
  close(): Promise<void>;
}

/** Where each session kind is created, what Stripe calls its object, and how its ids and pages look. */
const SESSIONS: Record<string, { object: string; prefix: string; page: string }> = {
  '/v1/checkout/sessions': { object: 'checkout.session', prefix: 'cs_test_', page: 'https://checkout.stripe.test/c/pay/' },
  '/v1/billing_portal/sessions': { object: 'billing_portal.session', prefix: 'bps_test_', page: 'https://billing.stripe.test/p/session/' },
};

/**
 * A real local HTTP server standing in for Stripe's API: it takes the SDK's form-encoded
 * POSTs that create Checkout and Billing Portal sessions, records them, and answers as Stripe
 * does, with the session's `id`, `object` and hosted-page `url`.
 */
export async function startFakeStripe(): Promise<FakeStripe> {
  const calls: StripeCall[] = [];
  let failures: { status: number; count: number } = { status: 0, count: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      calls.push({ method: req.method ?? '', path, headers: req.headers, params });
      const answer = (status: number, body: object) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (failures.count > 0) {
        failures = { ...failures, count: failures.count - 1 };
        return answer(failures.status, { error: { type: 'api_error', message: 'The fake Stripe was told to fail' } });
      }
      const session = req.method === 'POST' ? SESSIONS[path] : undefined;
      if (!session)
        return answer(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } });
      const id = `${session.prefix}${calls.length}`;
      return answer(200, { id, object: session.object, url: `${session.page}${id}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failNext(status, count = 1) {
      failures = { status, count };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

/** A Stripe event as its webhook delivers it, with a fresh id. `created` is in Unix seconds. */
export function stripeEvent(type: string, object: Record<string, unknown>, created: number) {
  return {
    id: `evt_test_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/**
 * The request Stripe's webhook makes: the body as sent and the `stripe-signature` header the
 * SDK's test helper computes for it (at `timestamp`, Unix seconds, default now).
 */
export function signedDelivery(secret: string, body: object | string, timestamp?: number) {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
  return { payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } };
}
