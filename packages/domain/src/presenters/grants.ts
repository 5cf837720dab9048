import type { ExecutionGrantRow, GrantSigningKeyRow } from '@agov/db';
import { iso, isoOrNull } from './time.js';

export const presentRedeemedGrant = (grant: ExecutionGrantRow) => ({
  jti: grant.jti,
  approval_id: grant.approvalRequestId,
  trace_id: grant.traceId,
  redeemed_at: isoOrNull(grant.redeemedAt),
});

/** A signing key as the rotation answers it: its id and age, never key material. */
export const presentGrantKey = (key: GrantSigningKeyRow) => ({ kid: key.kid, created_at: iso(key.createdAt) });

export const presentGrantSettings = (settings: { issueOnAllow: boolean }) => ({ issue_on_allow: settings.issueOnAllow });
