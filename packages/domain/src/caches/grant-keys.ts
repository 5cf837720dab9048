import type { KeyObject } from 'node:crypto';
import { InvalidatedCache } from './invalidated-cache.js';

/** A tenant's current grant signing key, opened and imported: ready to sign. */
export interface GrantSigningKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * Every approval signs a grant, and so may every `allow`; this keeps each tenant's current key
 * opened and imported, so signing costs no decryption. A rotation invalidates the tenant's entry
 * in every process (`grant_key`). A grant signed with a key retired meanwhile still verifies:
 * the JWKS keeps a retired key while any grant it signed is unexpired (grants/keys.ts).
 */
export class GrantKeyCache extends InvalidatedCache<GrantSigningKey> {
  constructor() {
    super({ max: 10_000, ttlMs: 600_000 });
  }
}

/** What a tenant asks of grants beyond approvals. */
export interface GrantSettings {
  /** Evaluate signs a grant for every `allow`. */
  issueOnAllow: boolean;
}

/**
 * Every `allow` asks whether its tenant wants a grant; this keeps the answer in memory. A change
 * invalidates the tenant's entry in every process (`grant_settings`); the TTL bounds staleness
 * should a notice be missed.
 */
export class GrantSettingsCache extends InvalidatedCache<GrantSettings> {
  constructor() {
    super({ max: 50_000, ttlMs: 60_000 });
  }
}
