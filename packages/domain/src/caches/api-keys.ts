import type { Scope } from '../access/access.js';
import { InvalidatedCache } from './invalidated-cache.js';

export interface CachedApiKey {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/**
 * Authenticating a key must not cost a query per request. Entries are keyed by the key's
 * SHA-256; rotating or deleting a key evicts it in every process (see invalidation.ts). The
 * TTL bounds staleness should a notification ever be missed.
 */
export class ApiKeyCache extends InvalidatedCache<CachedApiKey> {
  constructor() {
    super({ max: 50_000, ttlMs: 30_000 });
  }

  /** Entries are keyed by hash, invalidations name the key's id. */
  override drop(keyId: string): void {
    this.deleteWhere((key) => key.id === keyId);
  }
}
