import { eq } from 'drizzle-orm';
import { tenants } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import type { GrantSettings } from '../caches/grant-keys.js';
import { transactionInvalidating } from '../caches/invalidation.js';

/** The tenant's grant settings, from the cache or read and cached. */
export async function grantSettings(deps: CoreDeps, tenantId: string): Promise<GrantSettings> {
  const cached = deps.caches.grantSettings.get(tenantId);
  if (cached) return cached;
  const ticket = deps.caches.grantSettings.ticket();
  const [row] = await deps.database.db.select({ issueOnAllow: tenants.issueGrantsOnAllow }).from(tenants).where(eq(tenants.id, tenantId));
  const settings = { issueOnAllow: row?.issueOnAllow ?? false };
  deps.caches.grantSettings.set(tenantId, settings, ticket);
  return settings;
}

/** Replaces the principal's tenant's grant settings; every process drops its copy. */
export async function saveGrantSettings(deps: CoreDeps, principal: Principal, settings: GrantSettings): Promise<GrantSettings> {
  await transactionInvalidating(deps, async (tx, invalidate) => {
    invalidate({ kind: 'grant_settings', id: principal.tenantId });
    await tx.update(tenants).set({ issueGrantsOnAllow: settings.issueOnAllow }).where(eq(tenants.id, principal.tenantId));
  });
  return settings;
}
