import type { Approval } from './queries';

/** What became of a request's execution grant, for the reviewer: never the token itself, which is a bearer credential. */
export type GrantStatus =
  | { kind: 'none' }
  | { kind: 'redeemed'; at: string }
  | { kind: 'expired'; at: string }
  | { kind: 'unused'; expiresAt: string };

export function grantStatusOf(approval: Pick<Approval, 'grant' | 'grant_expires_at' | 'grant_redeemed_at'>, now: Date): GrantStatus {
  if (!approval.grant || !approval.grant_expires_at) return { kind: 'none' };
  if (approval.grant_redeemed_at) return { kind: 'redeemed', at: approval.grant_redeemed_at };
  if (Date.parse(approval.grant_expires_at) <= now.getTime()) return { kind: 'expired', at: approval.grant_expires_at };
  return { kind: 'unused', expiresAt: approval.grant_expires_at };
}
