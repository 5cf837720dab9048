import { verify } from '@octokit/webhooks-methods';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders } from './signing.js';

const secret = '3f1c9a7e5b2d4f6081a3c5e7f9b1d3e5a7c9e1f3b5d7f9a1c3e5a7b9d1f3e5a7';
const deliveryId = '0f8e2b7c-5d1a-4c3e-9b6f-2a4d8c1e7f90';
const body = JSON.stringify({
  id: 'evt_1',
  event: 'test',
  timestamp: '2026-01-01T00:00:00.000Z',
  tenant_id: 't1',
  data: { message: 'héllo ✓' },
});

/**
 * standardwebhooks base64-decodes the secret it is given; ours signs with the secret's
 * ASCII characters, so the verifier gets exactly those bytes in base64.
 */
const standardVerifier = new Webhook(Buffer.from(secret, 'ascii').toString('base64'));

describe('deliveryHeaders', () => {
  it('sends exactly the spec headers and the Standard Webhooks headers, in lowercase', () => {
    const headers = deliveryHeaders(secret, deliveryId, body, new Date());
    expect(Object.keys(headers).sort()).toEqual([
      'content-type',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-webhook-id',
      'x-webhook-signature',
      'x-webhook-timestamp',
    ]);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-webhook-id']).toBe(deliveryId);
    expect(headers['webhook-id']).toBe(deliveryId);
  });

  it('writes the time as ISO 8601 with milliseconds and as whole Unix seconds', () => {
    const headers = deliveryHeaders(secret, deliveryId, body, new Date('2025-01-02T03:04:05.678Z'));
    expect(headers['x-webhook-timestamp']).toBe('2025-01-02T03:04:05.678Z');
    expect(headers['webhook-timestamp']).toBe('1735787045');
  });

  it('signs the raw body as sha256=<lowercase hex>, which @octokit/webhooks-methods verifies with the secret string', async () => {
    const signature = deliveryHeaders(secret, deliveryId, body, new Date())['x-webhook-signature']!;
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verify(secret, body, signature)).toBe(true);
  });

  it('signs id, time and body as v1,<base64>, which standardwebhooks verifies', () => {
    const headers = deliveryHeaders(secret, deliveryId, body, new Date());
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(standardVerifier.verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails both verifications when the body is tampered with', async () => {
    const headers = deliveryHeaders(secret, deliveryId, body, new Date());
    const tampered = body.replace('héllo', 'hello');
    expect(await verify(secret, tampered, headers['x-webhook-signature']!)).toBe(false);
    expect(() => standardVerifier.verify(tampered, headers)).toThrow(WebhookVerificationError);
  });

  it('fails the Standard Webhooks verification when the id or the time is changed', () => {
    const headers = deliveryHeaders(secret, deliveryId, body, new Date());
    expect(() => standardVerifier.verify(body, { ...headers, 'webhook-id': 'another-id' })).toThrow(WebhookVerificationError);
    const earlier = String(Number(headers['webhook-timestamp']) - 1);
    expect(() => standardVerifier.verify(body, { ...headers, 'webhook-timestamp': earlier })).toThrow(WebhookVerificationError);
  });

  it('keys the HMAC with the secret characters, not the bytes its hex spells', async () => {
    const headers = deliveryHeaders(secret, deliveryId, body, new Date());
    const hexDecoded = new Webhook(Buffer.from(secret, 'hex').toString('base64'));
    expect(() => hexDecoded.verify(body, headers)).toThrow(WebhookVerificationError);
    expect(await verify(secret.toUpperCase(), body, headers['x-webhook-signature']!)).toBe(false);
  });
});
