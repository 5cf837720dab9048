/** The body of every webhook delivery. */
export interface WebhookEnvelope<Data = Record<string, unknown>> {
  /** The event's id: the same on every attempt, so receivers de-duplicate on it. */
  id: string;
  /** The event type, e.g. `approval.approved`, or `test`. */
  event: string;
  timestamp: string;
  tenant_id: string;
  data: Data;
}

export type WebhookFailure =
  | 'missing_signature'
  | 'invalid_signature'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'invalid_body';

/** A delivery that cannot be trusted; `reason` says why. Answer it with 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookFailure;

  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** Largest distance between the delivery's timestamp and now. Default 300 s. */
  toleranceSeconds?: number;
  /** The time to compare with; default now. */
  now?: Date;
}

/** Headers as `fetch` gives them, or as Node's `req.headers` (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Checks a delivery's signature and age, then parses it. `rawBody` must be the bytes as
 * received: a body parsed and serialized again does not match. With the Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`), whose
 * signature covers the id and the time, those are checked; otherwise the service's own
 * (`X-Webhook-Signature: sha256=<hex>`, `X-Webhook-Timestamp`), whose signature covers the
 * body alone. The key is the endpoint's secret, the 64 characters as they are.
 * Signatures are compared by WebCrypto's HMAC verify, in constant time.
 */
export async function verifyWebhook<Data = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEnvelope<Data>> {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: false }).decode(rawBody);
  const bodyBytes = typeof rawBody === 'string' ? encode(rawBody) : new Uint8Array(rawBody);
  const header = (name: string) => readHeader(headers, name);
  const key = await crypto.subtle.importKey('raw', encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

  const standardSignature = header('webhook-signature');
  let sentAt: number;
  if (standardSignature !== undefined) {
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    if (id === undefined || timestamp === undefined)
      throw new WebhookVerificationError('missing_signature', 'webhook-id or webhook-timestamp is missing');
    if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
    const signed = concat(encode(`${id}.${timestamp}.`), bodyBytes);
    // The header may carry several signatures (during a secret rotation): one valid suffices.
    const candidates = standardSignature.split(' ').flatMap((part) => (part.startsWith('v1,') ? [fromBase64(part.slice(3))] : []));
    if (!(await anyVerifies(key, candidates, signed)))
      throw new WebhookVerificationError('invalid_signature', 'webhook-signature does not match');
    sentAt = Number(timestamp) * 1000;
  } else {
    const signature = header('x-webhook-signature');
    if (signature === undefined)
      throw new WebhookVerificationError('missing_signature', 'no X-Webhook-Signature or webhook-signature header');
    const hex = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim())?.[1];
    if (!(await anyVerifies(key, hex ? [fromHex(hex)] : [], bodyBytes))) {
      throw new WebhookVerificationError('invalid_signature', 'X-Webhook-Signature does not match');
    }
    const timestamp = header('x-webhook-timestamp');
    sentAt = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
    if (Number.isNaN(sentAt)) throw new WebhookVerificationError('invalid_timestamp', 'X-Webhook-Timestamp is missing or not a date');
  }

  const toleranceMs = (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS) * 1000;
  if (Math.abs((options.now ?? new Date()).getTime() - sentAt) > toleranceMs) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', 'the delivery is older (or newer) than the tolerance allows');
  }
  try {
    return JSON.parse(body) as WebhookEnvelope<Data>;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
}

async function anyVerifies(key: HmacKey, signatures: (Bytes | null)[], data: Bytes): Promise<boolean> {
  let verified = false;
  for (const signature of signatures) {
    if (signature && (await crypto.subtle.verify('HMAC', key, signature, data))) verified = true;
  }
  return verified;
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

/** An HMAC key of WebCrypto (named through its factory: not every runtime's types declare `CryptoKey` globally). */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** Bytes WebCrypto takes: backed by an ArrayBuffer. */
type Bytes = Uint8Array<ArrayBuffer>;

const encode = (text: string): Bytes => new TextEncoder().encode(text);

function concat(a: Bytes, b: Bytes): Bytes {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

function fromHex(hex: string): Bytes {
  return Uint8Array.from(hex.match(/../g)!, (pair) => Number.parseInt(pair, 16));
}

function fromBase64(text: string): Bytes | null {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}
