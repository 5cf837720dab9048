import { LRUCache } from 'lru-cache';
import type { Scope } from '../access.js';

export interface CachedApiKey {
  id: string;
  tenantId: string;
  name: string;
  scopes: Scope[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/**
 * Authenticating a key must not cost a query per request. Entries are keyed by the key's
 * SHA-256; a change to a key evicts it here after commit and, through the database's
 * notification channel, in every other process. The TTL bounds staleness should a
 * notification ever be missed.
 */
export class ApiKeyCache {
  private readonly byHash = new LRUCache<string, CachedApiKey>({ max: 50_000, ttl: 30_000 });

  get(keyHash: string): CachedApiKey | undefined {
    return this.byHash.get(keyHash);
  }

  set(keyHash: string, key: CachedApiKey): void {
    this.byHash.set(keyHash, key);
  }

  evictKeyId(keyId: string): void {
    for (const [hash, key] of this.byHash.entries()) {
      if (key.id === keyId) this.byHash.delete(hash);
    }
  }
}
