import { and, desc, eq } from 'drizzle-orm';
import { apiKeys, type Executor, type ApiKeyRow } from '@agov/db';
import type { Principal, Scope } from '../access/access.js';
import type { IdentityDeps } from './deps.js';
import { AppError, notFound } from '../support/errors.js';
import { transactionInvalidating } from '../caches/invalidation.js';
import { pageOf, type Page, type Paged } from '../support/pagination.js';
import { randomHex } from '../support/secrets.js';
import { sha256Hex } from '../support/sha256.js';
import type { CachedApiKey } from '../caches/api-keys.js';
import type { CoreDeps } from '../caches/caches.js';

/** A key record together with its secret: only ever returned by create and rotate. */
export type IssuedApiKey = ApiKeyRow & { key: string };

const KEY_PATTERN = /^ai_[0-9a-f]{64}$/;
/** `last_used_at` is written at most this often per key, never on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

function newKey() {
  const key = `ai_${randomHex(32)}`;
  return { key, keyHash: sha256Hex(key), prefix: key.slice(0, 12) };
}

export interface CreateApiKeyInput {
  name: string;
  scopes: Scope[];
  expires_at?: string | null;
}

export async function createApiKey(
  deps: CoreDeps,
  principal: Principal,
  input: CreateApiKeyInput,
  executor: Executor = deps.database.db,
): Promise<IssuedApiKey> {
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt <= deps.clock.now()) {
    throw new AppError('validation_error', 'expires_at must be in the future', {
      fields: [{ field: 'expires_at', message: 'must be in the future' }],
    });
  }
  const { key, keyHash, prefix } = newKey();
  const [row] = await executor
    .insert(apiKeys)
    .values({ tenantId: principal.tenantId, name: input.name, keyHash, prefix, scopes: [...new Set(input.scopes)], expiresAt })
    .returning();
  return { ...row!, key };
}

export async function listApiKeys(deps: IdentityDeps, principal: Principal, page: Page): Promise<Paged<ApiKeyRow>> {
  return pageOf(deps.database.db, apiKeys, eq(apiKeys.tenantId, principal.tenantId), [desc(apiKeys.createdAt), desc(apiKeys.id)], page);
}

export async function deleteApiKey(deps: IdentityDeps, principal: Principal, id: string): Promise<void> {
  await transactionInvalidating(deps, async (tx, invalidate) => {
    const rows = await tx
      .delete(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, principal.tenantId)))
      .returning({ id: apiKeys.id });
    if (rows.length === 0) throw notFound('API key');
    invalidate({ kind: 'api_key', id });
  });
}

/** A new secret for the same record: id, name, scopes and expiry stay; the old secret dies at once. */
export async function rotateApiKey(deps: IdentityDeps, principal: Principal, id: string): Promise<IssuedApiKey> {
  const { key, keyHash, prefix } = newKey();
  const row = await transactionInvalidating(deps, async (tx, invalidate) => {
    const [updated] = await tx
      .update(apiKeys)
      .set({ keyHash, prefix, lastUsedAt: null })
      .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, principal.tenantId)))
      .returning();
    if (!updated) throw notFound('API key');
    invalidate({ kind: 'api_key', id });
    return updated;
  });
  return { ...row, key };
}

/**
 * Who a presented API key is: its tenant, name, prefix and scopes. A key missing (undefined:
 * the credential named none), malformed, unknown or expired is refused with one 401 for all,
 * so a caller learns nothing about which it was. Keys are read through the cache: the caller
 * first makes sure the caches are fresh (`Deps.freshness.ensure()`, once per request, for
 * every cache the request will read), or, on evaluate, has its write check that they were
 * (`checksCachesAtWrite`). Records when the key was last used, at most once a minute.
 */
export async function principalOfApiKey(deps: IdentityDeps, presentedKey: string | undefined): Promise<Principal> {
  const key = presentedKey === undefined ? null : await liveKey(deps, presentedKey);
  if (!key) throw new AppError('unauthorized', 'Invalid, expired or revoked API key');
  return { kind: 'api_key', tenantId: key.tenantId, keyId: key.id, keyName: key.name, keyPrefix: key.prefix, scopes: key.scopes };
}

/** The key behind a presented secret, or null when it is malformed, unknown or expired. */
async function liveKey(deps: IdentityDeps, presentedKey: string): Promise<CachedApiKey | null> {
  if (!KEY_PATTERN.test(presentedKey)) return null;
  const keyHash = sha256Hex(presentedKey);
  let key = deps.caches.apiKeys.get(keyHash);
  if (!key) {
    const ticket = deps.caches.apiKeys.ticket();
    const [row] = await deps.database.db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
    if (!row) return null;
    key = {
      id: row.id,
      tenantId: row.tenantId,
      name: row.name,
      prefix: row.prefix,
      scopes: row.scopes as Scope[],
      expiresAt: row.expiresAt,
      lastUsedAt: row.lastUsedAt,
    };
    deps.caches.apiKeys.set(keyHash, key, ticket);
  }
  const now = deps.clock.now();
  if (key.expiresAt && key.expiresAt <= now) return null;
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    key.lastUsedAt = now;
    await deps.database.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, key.id));
  }
  return key;
}
