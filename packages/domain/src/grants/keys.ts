import { and, desc, eq, exists, gt, isNull, or, sql } from 'drizzle-orm';
import { executionGrants, grantSigningKeys, type GrantPublicJwk, type GrantSigningKeyRow, type Tx } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { GrantSigningKey } from '../caches/grant-keys.js';
import { transactionInvalidating } from '../caches/invalidation.js';
import { grantKeyPlace } from '../secrets-at-rest/places.js';
import type { GrantDeps } from './deps.js';
import { importPrivateKey, newGrantKeyPair } from './jws.js';

const isCurrent = (tenantId: string) => and(eq(grantSigningKeys.tenantId, tenantId), isNull(grantSigningKeys.retiredAt));

/**
 * The tenant's current signing key, made on first use. A key cached in this process is used
 * only if the row says it is still the current one.
 */
export async function currentSigningKey(deps: GrantDeps, tx: Tx, tenantId: string, now: Date): Promise<GrantSigningKey> {
  const cache = deps.caches.grantKeys;
  const ticket = cache.ticket();
  const row = (await readCurrent(tx, tenantId)) ?? (await createFirstKey(deps, tx, tenantId, now));
  const cached = cache.get(tenantId);
  if (cached?.kid === row.kid) return cached;
  const key = { kid: row.kid, privateKey: importPrivateKey(deps.secrets.open(row.privateKey, grantKeyPlace(row.kid))) };
  cache.set(tenantId, key, ticket);
  return key;
}

async function readCurrent(tx: Tx, tenantId: string): Promise<Pick<GrantSigningKeyRow, 'kid' | 'privateKey'> | undefined> {
  const [row] = await tx
    .select({ kid: grantSigningKeys.kid, privateKey: grantSigningKeys.privateKey })
    .from(grantSigningKeys)
    .where(isCurrent(tenantId));
  return row;
}

/**
 * The tenant's first key. Of concurrent first approvals exactly one key is kept: the unique
 * index on the current key makes the others' inserts wait for the first to commit and then
 * do nothing, and they read the key it made.
 */
async function createFirstKey(deps: GrantDeps, tx: Tx, tenantId: string, now: Date) {
  await tx
    .insert(grantSigningKeys)
    .values(await sealedKeyRow(deps, tenantId, now))
    .onConflictDoNothing();
  const row = await readCurrent(tx, tenantId);
  // Inserted here or by the transaction that won: either way committed or ours, and current.
  if (!row) throw new Error(`no current grant signing key for tenant ${tenantId} after creating one`);
  return row;
}

async function sealedKeyRow(deps: GrantDeps, tenantId: string, now: Date) {
  const { kid, publicJwk, privateJwk } = await newGrantKeyPair();
  return {
    kid,
    tenantId,
    publicJwk,
    privateKey: deps.secrets.seal(JSON.stringify(privateJwk), grantKeyPlace(kid)),
    createdAt: now,
  };
}

/**
 * Makes a new key current for the principal's tenant; the old one is retired, and stays
 * published while a grant it signed is unexpired (`publishedGrantKeys`). Every process drops
 * its cached key. Concurrent rotations queue on the current key's row.
 */
export async function rotateGrantKey(deps: GrantDeps, principal: Principal): Promise<GrantSigningKeyRow> {
  const { tenantId } = principal;
  const now = deps.clock.now();
  const fresh = await sealedKeyRow(deps, tenantId, now);
  return transactionInvalidating(deps, async (tx, invalidate) => {
    invalidate({ kind: 'grant_key', id: tenantId });
    const [current] = await tx.select({ kid: grantSigningKeys.kid }).from(grantSigningKeys).where(isCurrent(tenantId)).for('update');
    if (current) await tx.update(grantSigningKeys).set({ retiredAt: now }).where(eq(grantSigningKeys.kid, current.kid));
    const [created] = await tx.insert(grantSigningKeys).values(fresh).onConflictDoNothing().returning();
    if (created) return created;
    // A concurrent rotation (or first approval) made a key current meanwhile: it is the new key.
    const [theirs] = await tx.select().from(grantSigningKeys).where(isCurrent(tenantId));
    return theirs!;
  });
}

/**
 * The tenant's public keys a verifier needs: the current one and every retired key that signed
 * a grant not yet expired, newest first. Read from the grants themselves, so a grant signed with
 * a key cached in some process while another rotated it verifies all the same: its row commits
 * before its token is answered. An unknown tenant has none, which tells nothing of whether it exists.
 */
export async function publishedGrantKeys(deps: GrantDeps, tenantId: string): Promise<GrantPublicJwk[]> {
  const signsUnexpired = deps.database.db
    .select({ one: sql`1` })
    .from(executionGrants)
    .where(and(eq(executionGrants.kid, grantSigningKeys.kid), gt(executionGrants.expiresAt, deps.clock.now())));
  const rows = await deps.database.db
    .select({ publicJwk: grantSigningKeys.publicJwk })
    .from(grantSigningKeys)
    .where(and(eq(grantSigningKeys.tenantId, tenantId), or(isNull(grantSigningKeys.retiredAt), exists(signsUnexpired))))
    .orderBy(desc(grantSigningKeys.createdAt));
  return rows.map((row) => row.publicJwk);
}
