import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt } from './columns.js';
import { tenants } from './identity.js';

/** A public key as the JWKS publishes it (RFC 8037 OKP). */
export interface GrantPublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The public key, base64url. */
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/**
 * A tenant's Ed25519 keys for signing execution grants. At most one is current (not
 * retired); a retired key stays in the JWKS while a grant it signed is unexpired, so every
 * grant it signed still verifies.
 */
export const grantSigningKeys = pgTable(
  'grant_signing_keys',
  {
    /** The RFC 7638 thumbprint of the public key: the JWS header's `kid`. */
    kid: text('kid').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    publicJwk: jsonb('public_jwk').$type<GrantPublicJwk>().notNull(),
    /** The private JWK as JSON, sealed by `Deps.secrets` (secrets-at-rest, `grantKeyPlace`). */
    privateKey: text('private_key').notNull(),
    createdAt: createdAt(),
    retiredAt: at('retired_at'),
  },
  (t) => [
    uniqueIndex('grant_signing_keys_one_current').on(t.tenantId).where(sql`${t.retiredAt} is null`),
    index('grant_signing_keys_tenant').on(t.tenantId, t.createdAt),
  ],
);

// Written with the approval it is for, in the same transaction: like approval_requests, no
// foreign keys to the audit tables (see traces.ts).

/**
 * A signed grant, and whether a tool has redeemed it: one per approved request, or one per
 * `allow` decision of a tenant that asks for them (no approval request then).
 */
export const executionGrants = pgTable(
  'execution_grants',
  {
    jti: uuid('jti').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    approvalRequestId: uuid('approval_request_id'),
    traceId: uuid('trace_id').notNull(),
    kid: text('kid').notNull(),
    token: text('token').notNull(),
    issuedAt: at('issued_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    redeemedAt: at('redeemed_at'),
    redeemedBy: text('redeemed_by'),
  },
  (t) => [
    uniqueIndex('execution_grants_approval').on(t.approvalRequestId),
    // Whether a retired key still signs an unexpired grant, for the JWKS.
    index('execution_grants_kid_expiry').on(t.kid, t.expiresAt),
  ],
);

export type GrantSigningKeyRow = typeof grantSigningKeys.$inferSelect;
export type ExecutionGrantRow = typeof executionGrants.$inferSelect;
