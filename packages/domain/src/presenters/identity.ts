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
