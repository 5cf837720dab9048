import { describe, expect, it } from 'vitest';
import { keyWithScopes, signupTenant, useTestApp } from '../../../apps/api/test/harness.js';
import { type Received, startReceiver } from '../../../test/receiver.js';
import { createClient, verifyWebhook, WebhookVerificationError } from '../src/index.js';
import { listen } from './service.js';

// Development mode accepts plain http on the local host, where the receiver listens.
const t = useTestApp({ env: { NODE_ENV: 'development', WEBHOOK_TIMEOUT_MS: '2000' } });

/** A real delivery: the service's signed test envelope, as a local receiver got it. */
async function realDelivery(): Promise<{ delivery: Received; secret: string; tenantId: string }> {
  const receiver = await startReceiver(200);
  try {
    const tenant = await signupTenant(t.app);
    const { apiKey } = await keyWithScopes(t.app, tenant, ['admin']);
    const admin = createClient({ baseUrl: await listen(t), apiKey });
    const created = (await admin.api.POST('/api/v1/webhooks', { body: { url: receiver.url, events: ['approval.requested'] } })).data!.data;
    const sent = (await admin.api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: created.id } } })).data!;
    expect(sent.delivered).toBe(true);
    return { delivery: receiver.received[0]!, secret: created.secret, tenantId: tenant.tenantId };
  } finally {
    await receiver.close();
  }
}

/** The delivery's headers with only one of the two signature styles. */
function only(style: 'ours' | 'standard', headers: Received['headers']) {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => (style === 'ours' ? !name.startsWith('webhook-') : !name.startsWith('x-webhook-'))),
  );
}

async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => new Error('expected a rejection'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe('verifyWebhook()', () => {
  it('accepts a real delivery by either header style, from Node headers or fetch Headers, and returns the envelope', async () => {
    const { delivery, secret, tenantId } = await realDelivery();
    const envelope = {
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      event: 'test',
      timestamp: expect.any(String),
      tenant_id: tenantId,
      data: { message: 'Test event from Agent Governance' },
    };
    expect(await verifyWebhook(delivery.body, only('ours', delivery.headers), secret)).toEqual(envelope);
    expect(await verifyWebhook(delivery.body, only('standard', delivery.headers), secret)).toEqual(envelope);
    const fetchHeaders = new Headers(only('standard', delivery.headers) as Record<string, string>);
    expect(await verifyWebhook(new TextEncoder().encode(delivery.body), fetchHeaders, secret)).toEqual(envelope);
  });

  it('refuses a changed body, another secret, a missing signature, an unreadable timestamp', async () => {
    const { delivery, secret } = await realDelivery();
    const changed = delivery.body.replace('Test event', 'Test evenT');
    for (const style of ['ours', 'standard'] as const) {
      expect(await failure(verifyWebhook(changed, only(style, delivery.headers), secret))).toBe('invalid_signature');
      expect(await failure(verifyWebhook(delivery.body, only(style, delivery.headers), 'f'.repeat(64)))).toBe('invalid_signature');
    }
    expect(await failure(verifyWebhook(delivery.body, { 'content-type': 'application/json' }, secret))).toBe('missing_signature');
    expect(
      await failure(verifyWebhook(delivery.body, { ...only('standard', delivery.headers), 'webhook-timestamp': 'soon' }, secret)),
    ).toBe('invalid_timestamp');
    const garbled = { ...only('ours', delivery.headers), 'x-webhook-signature': 'sha256=not-hex' };
    expect(await failure(verifyWebhook(delivery.body, garbled, secret))).toBe('invalid_signature');
  });

  it('refuses a delivery outside the time tolerance (default 5 minutes), in both styles', async () => {
    const { delivery, secret } = await realDelivery();
    const sixMinutesLater = new Date(Date.now() + 6 * 60_000);
    for (const style of ['ours', 'standard'] as const) {
      const headers = only(style, delivery.headers);
      expect(await failure(verifyWebhook(delivery.body, headers, secret, { now: sixMinutesLater }))).toBe('timestamp_out_of_tolerance');
      expect((await verifyWebhook(delivery.body, headers, secret, { now: sixMinutesLater, toleranceSeconds: 600 })).event).toBe('test');
    }
  });
});
