import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../support/errors.js';
import { keyIdOf, secretBox, SecretUnreadable } from './secret-box.js';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const PLACE = 'webhook_endpoints.secret:4b1c0a52-3c54-4f4e-9a51-8b6e7d0c2f10';
const SECRET = 'xoxb-1234567890-abcdefghijklmnop';

describe('the secret box', () => {
  const box = secretBox({ current: NEW, previous: null });

  it('names a key by the first 8 hex of its SHA-256', () => {
    expect(keyIdOf(NEW)).toBe(createHash('sha256').update(NEW).digest('hex').slice(0, 8));
    expect(box.keyId).toBe(keyIdOf(NEW));
  });

  it('seals into the self-describing format and opens again, with a fresh IV each time', () => {
    const sealed = box.seal(SECRET, PLACE);
    expect(sealed).toMatch(new RegExp(`^enc:v1:${keyIdOf(NEW)}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain(SECRET);
    // 12-byte IV, the 32 bytes of the value, 16-byte tag.
    expect(Buffer.from(sealed.split(':')[3]!, 'base64url')).toHaveLength(12 + SECRET.length + 16);
    expect(box.open(sealed, PLACE)).toBe(SECRET);
    expect(box.seal(SECRET, PLACE)).not.toBe(sealed);
    expect(box.open(box.seal('', PLACE), PLACE)).toBe('');
  });

  it('refuses a value altered anywhere: IV, ciphertext or tag', () => {
    const sealed = box.seal(SECRET, PLACE);
    const bytes = Buffer.from(sealed.split(':')[3]!, 'base64url');
    for (const at of [0, 12, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at]! ^= 1;
      const stored = `enc:v1:${keyIdOf(NEW)}:${altered.toString('base64url')}`;
      expect(() => box.open(stored, PLACE)).toThrow(SecretUnreadable);
    }
    expect(() => box.open(`enc:v1:${keyIdOf(NEW)}:${bytes.subarray(0, 20).toString('base64url')}`, PLACE)).toThrow(/truncated/);
    expect(() => box.open('enc:v1:nonsense', PLACE)).toThrow(/not in the sealed format/);
  });

  it('refuses a value copied to another place', () => {
    const sealed = box.seal(SECRET, PLACE);
    expect(() => box.open(sealed, 'webhook_endpoints.secret:00000000-0000-0000-0000-000000000000')).toThrow(/integrity check/);
  });

  it('opens a value again as often as asked, and only at its own place, however often it was opened before', () => {
    const sealed = box.seal(SECRET, PLACE);
    for (let time = 0; time < 3; time += 1) expect(box.open(sealed, PLACE)).toBe(SECRET);
    expect(() => box.open(sealed, 'webhook_endpoints.secret:00000000-0000-0000-0000-000000000000')).toThrow(/integrity check/);
    // A box without the key opens nothing, whatever another box has opened.
    expect(() => secretBox({ current: OLD, previous: null }).open(sealed, PLACE)).toThrow(/neither SECRETS_KEY/);
  });

  it('refuses a value sealed under a key it does not hold, naming both keys', () => {
    const sealed = secretBox({ current: OLD, previous: null }).seal(SECRET, PLACE);
    expect(() => box.open(sealed, PLACE)).toThrow(
      new SecretUnreadable(
        `The secret stored at ${PLACE} was sealed under key ${keyIdOf(OLD)}, which is neither SECRETS_KEY (${keyIdOf(NEW)}) nor SECRETS_KEY_PREVIOUS`,
      ),
    );
    // A different key given the same id cannot open it either.
    const forged = sealed.replace(keyIdOf(OLD), keyIdOf(NEW));
    expect(() => box.open(forged, PLACE)).toThrow(/integrity check/);
  });

  it('opens values under the previous key, and reseals them under the current one', () => {
    const sealedOld = secretBox({ current: OLD, previous: null }).seal(SECRET, PLACE);
    const rotating = secretBox({ current: NEW, previous: OLD });
    expect(rotating.open(sealedOld, PLACE)).toBe(SECRET);
    const resealed = rotating.reseal(sealedOld, PLACE)!;
    expect(resealed.startsWith(`enc:v1:${keyIdOf(NEW)}:`)).toBe(true);
    expect(box.open(resealed, PLACE)).toBe(SECRET);
    expect(rotating.reseal(resealed, PLACE)).toBeNull();
  });

  it('reads a plain value stored before encryption as itself, and reseals it', () => {
    expect(box.open(SECRET, PLACE)).toBe(SECRET);
    expect(box.open('https://hooks.slack.com/services/T0/B0/x', PLACE)).toBe('https://hooks.slack.com/services/T0/B0/x');
    expect(box.open(box.reseal(SECRET, PLACE)!, PLACE)).toBe(SECRET);
  });

  it('without a key reads plain values but stores nothing: 503 naming SECRETS_KEY', () => {
    const keyless = secretBox({ current: null, previous: null });
    expect(keyless.keyId).toBeNull();
    expect(keyless.open(SECRET, PLACE)).toBe(SECRET);
    let refusal: unknown;
    try {
      keyless.seal(SECRET, PLACE);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'service_unavailable', status: 503, details: { variable: 'SECRETS_KEY' } });
    expect((refusal as AppError).message).toContain('SECRETS_KEY');
  });
});
