import type { Database } from '@agov/db';
import type { Clock } from '../support/clock.js';
import { ApiKeyCache } from './api-keys.js';
import { DecisionInputsCache } from './decision-inputs.js';
import { EffectAudienceCache } from './effect-audiences.js';
import { GrantKeyCache, GrantSettingsCache } from './grant-keys.js';
import { TenantPlanCache } from './tenant-plans.js';

/**
 * Every cache a process keeps, each with the kind of invalidation that drops its entries
 * (the id it names is the one its `drop` takes). Adding a cache is one entry here.
 */
const CACHES = {
  /** API keys by hash; `api_key` names a key rotated or deleted. */
  apiKeys: { create: () => new ApiKeyCache(), droppedBy: 'api_key' },
  /** An agent and its rules; `agent` names an agent that changed, or whose rules did. */
  decisionInputs: { create: () => new DecisionInputsCache(), droppedBy: 'agent' },
  /** A tenant's plan and its standing; `tenant_plan` names a tenant whose subscription changed. */
  tenantPlans: { create: () => new TenantPlanCache(), droppedBy: 'tenant_plan' },
  /** Who receives a tenant's effects; `effect_audience` names a tenant whose endpoints, e-mail or chat settings changed. */
  effectAudiences: { create: () => new EffectAudienceCache(), droppedBy: 'effect_audience' },
  /** A tenant's current grant signing key, opened; `grant_key` names a tenant whose key was rotated. */
  grantKeys: { create: () => new GrantKeyCache(), droppedBy: 'grant_key' },
  /** Whether a tenant's allowed actions get grants; `grant_settings` names a tenant that changed it. */
  grantSettings: { create: () => new GrantSettingsCache(), droppedBy: 'grant_settings' },
} as const;

type CacheName = keyof typeof CACHES;
export type Caches = { readonly [name in CacheName]: ReturnType<(typeof CACHES)[name]['create']> };

/** What a committed change made stale: which kind of entry, and its id. */
export interface Invalidation {
  kind: (typeof CACHES)[CacheName]['droppedBy'];
  id: string;
}

const NAMES = Object.keys(CACHES) as CacheName[];
const NAME_OF = Object.fromEntries(NAMES.map((name) => [CACHES[name].droppedBy, name])) as Record<Invalidation['kind'], CacheName>;

export function createCaches(): Caches {
  return Object.fromEntries(NAMES.map((name) => [name, CACHES[name].create()])) as Caches;
}

export function applyInvalidation(caches: Caches, change: Invalidation): void {
  caches[NAME_OF[change.kind]].drop(change.id);
}

/** Drops every entry of every cache, for when invalidations may have been missed. */
export function clearCaches(caches: Caches): void {
  for (const name of NAMES) caches[name].clear();
}

/** What every domain function may use: the database, the time, and the caches that front it. */
export interface CoreDeps {
  readonly database: Database;
  readonly clock: Clock;
  readonly caches: Caches;
}
