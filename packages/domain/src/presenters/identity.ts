import type { Principal } from '../access/access.js';
import { iso, isoOrNull } from './time.js';
import type { ApiKeyRow, TenantRow, UserRow } from '@agov/db';

export const presentTenant = (tenant: TenantRow) => ({ id: tenant.id, name: tenant.name });

export const presentUser = (user: UserRow) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  created_at: iso(user.createdAt),
});

// The spec names the prefix `prefix` in some shapes and `key_prefix` in others; every shape carries both.
export const presentApiKey = (key: ApiKeyRow) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  key_prefix: key.prefix,
  scopes: key.scopes,
  last_used_at: isoOrNull(key.lastUsedAt),
  created_at: iso(key.createdAt),
  expires_at: isoOrNull(key.expiresAt),
});

/** A key as create and rotate return it: the one time its secret is shown. */
export const presentIssuedApiKey = (key: ApiKeyRow & { key: string }) => ({ ...presentApiKey(key), key: key.key });

/** Signup's answer: the new tenant, its first admin, and the key made for the agent runtime. */
export const presentSignup = ({ tenant, user, apiKey }: { tenant: TenantRow; user: UserRow; apiKey: ApiKeyRow & { key: string } }) => ({
  tenant: presentTenant(tenant),
  user: presentUser(user),
  api_key: presentIssuedApiKey(apiKey),
});

/** Login's answer: who signed in, to which tenant. */
export const presentLogin = ({ user, tenant }: { user: UserRow; tenant: TenantRow }) => ({
  user: presentUser(user),
  tenant: presentTenant(tenant),
});

/**
 * Who the credential is: the user (none for a key or the development bypass), the tenant,
 * a session's role, and a key's name and scopes (never its secret or prefix).
 */
export const presentWhoAmI = (principal: Principal, { tenant, user }: { tenant: TenantRow; user: UserRow | null }) => ({
  user: user ? presentUser(user) : null,
  tenant: presentTenant(tenant),
  role: principal.kind === 'session' ? principal.role : null,
  api_key: principal.kind === 'api_key' ? { id: principal.keyId, name: principal.keyName, scopes: [...principal.scopes] } : null,
});
