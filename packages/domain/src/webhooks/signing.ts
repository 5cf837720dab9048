import { createHmac } from 'node:crypto';

/**
 * The headers of one delivery attempt: the spec's (`Content-Type`, `X-Webhook-ID`,
 * `X-Webhook-Timestamp`, `X-Webhook-Signature`) and the Standard Webhooks ones
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`), which also sign the id and
 * the time so receivers can reject replays.
 */
export function deliveryHeaders(secret: string, deliveryId: string, body: string, at: Date): Record<string, string> {
  const unixSeconds = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'x-webhook-id': deliveryId,
    'x-webhook-timestamp': at.toISOString(),
    'x-webhook-signature': `sha256=${hmac(secret, body).toString('hex')}`,
    'webhook-id': deliveryId,
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': `v1,${hmac(secret, `${deliveryId}.${unixSeconds}.${body}`).toString('base64')}`,
  };
}

/**
 * CONTRACT: the key is the secret's 64 hex characters as ASCII bytes, not the 32 bytes
 * they spell, as GitHub does, so common verifiers work when handed the secret string.
 */
const hmac = (secret: string, message: string) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(message, 'utf8').digest();
