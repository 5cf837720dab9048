import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../support/sha256.js';
import { AppError } from '../support/errors.js';

/**
 * Seals the secrets the service stores (see README.md). A sealed value is
 * `enc:v1:<key id>:<base64url(iv | ciphertext | tag)>`: AES-256-GCM with a fresh 12-byte IV,
 * its additional data the value's place, so it opens only under the key named and only where
 * it was sealed. A value without the prefix is one stored before encryption: it opens as itself.
 */
export interface SecretBox {
  /** Id of the key that seals, or null when this process has none (and cannot store secrets). */
  readonly keyId: string | null;
  seal(value: string, place: string): string;
  /** The value stored at `place`; throws `SecretUnreadable` if no key here opens it, or it was altered or moved. */
  open(stored: string, place: string): string;
  /** The stored value sealed under the current key, or null when it already is. */
  reseal(stored: string, place: string): string | null;
}

export interface SecretKeys {
  /** Seals and opens; null: nothing can be sealed. */
  current: Buffer | null;
  /** Only opens: the key values were sealed under before a rotation. */
  previous: Buffer | null;
}

/** Misconfiguration or tampering, never bad input: the service cannot use the stored value. */
export class SecretUnreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnreadable';
  }
}

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^enc:v1:([0-9a-f]{8}):([A-Za-z0-9_-]+)$/;

/**
 * Values opened lately, by place and stored value: a worker signs every delivery with its
 * endpoint's secret, and opening costs a decipher each time. Holding them adds no exposure,
 * since the process holds the key that opens them. Only short values (secrets, not the
 * idempotent answers) are kept.
 */
const OPENED = {
  max: 1_024,
  maxSize: 256 * 1_024,
  maxEntrySize: 1_024,
  sizeCalculation: (value: string, key: string) => value.length + key.length,
};

/** A short fingerprint naming the key, so a reader picks the right one; it reveals nothing of the key. */
export const keyIdOf = (key: Buffer) => sha256Hex(key).slice(0, 8);

export function secretBox(keys: SecretKeys): SecretBox {
  const byId = new Map<string, Buffer>();
  if (keys.previous) byId.set(keyIdOf(keys.previous), keys.previous);
  if (keys.current) byId.set(keyIdOf(keys.current), keys.current);
  const keyId = keys.current ? keyIdOf(keys.current) : null;

  const seal = (value: string, place: string) => {
    if (!keys.current || !keyId) {
      throw new AppError('service_unavailable', 'Secrets cannot be stored: the service has no SECRETS_KEY. Its operator must set one.', {
        variable: 'SECRETS_KEY',
      });
    }
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keys.current, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(place, 'utf8'));
    const sealed = Buffer.concat([iv, cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${keyId}:${sealed.toString('base64url')}`;
  };

  /** Deciphers a sealed value, checking its key, its integrity and its place. */
  const openSealed = (stored: string, place: string) => {
    const [, id, data] = SEALED.exec(stored) ?? [];
    if (!id || !data) throw new SecretUnreadable(`The secret stored at ${place} is not in the sealed format`);
    const key = byId.get(id);
    if (!key) {
      throw new SecretUnreadable(
        `The secret stored at ${place} was sealed under key ${id}, which is neither SECRETS_KEY (${keyId ?? 'unset'}) nor SECRETS_KEY_PREVIOUS`,
      );
    }
    const bytes = Buffer.from(data, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretUnreadable(`The secret stored at ${place} is truncated`);
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(place, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadable(`The secret stored at ${place} failed its integrity check: altered, or copied from elsewhere`);
    }
  };

  const opened = new LRUCache<string, string>(OPENED);

  const open = (stored: string, place: string) => {
    if (!stored.startsWith(PREFIX)) return stored;
    const cacheKey = `${place}\n${stored}`;
    const known = opened.get(cacheKey);
    if (known !== undefined) return known;
    const value = openSealed(stored, place);
    opened.set(cacheKey, value);
    return value;
  };

  return {
    keyId,
    seal,
    open,
    reseal: (stored, place) => (keyId !== null && stored.startsWith(`${PREFIX}${keyId}:`) ? null : seal(open(stored, place), place)),
  };
}
