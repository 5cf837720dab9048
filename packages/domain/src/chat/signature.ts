import { createHmac, timingSafeEqual } from 'node:crypto';

/** CONTRACT: a callback timestamp more than 5 minutes from now, either way, is refused. */
export const CALLBACK_TOLERANCE_SECONDS = 300;

const TIMESTAMP = /^\d{1,12}$/;
const SIGNATURE = /^v0=[0-9a-f]{64}$/;

/** Slack's request signature: `v0=` + hex HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`). */
export function slackSignature(secret: string, timestamp: string, body: Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`v0:${timestamp}:`).update(body);
  return `v0=${hmac.digest('hex')}`;
}

/** Whether the timestamp header is Unix seconds within the tolerance of `now`. */
export function isFreshTimestamp(timestamp: string | undefined, now: Date): timestamp is string {
  if (timestamp === undefined || !TIMESTAMP.test(timestamp)) return false;
  return Math.abs(now.getTime() / 1000 - Number(timestamp)) <= CALLBACK_TOLERANCE_SECONDS;
}

/** Whether the header has the shape of a v0 signature; anything else cannot match any secret. */
export const isSignatureShaped = (signature: string | undefined): signature is string =>
  signature !== undefined && SIGNATURE.test(signature);

/**
 * Compares in constant time. Both sides have the fixed length of a v0 signature (the caller
 * checked the header's shape), so neither the comparison nor its length reveals anything.
 */
export function signatureMatches(secret: string, timestamp: string, body: Buffer, signature: string): boolean {
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
