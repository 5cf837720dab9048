import { describe, expect, it } from 'vitest';
import { grantStatusOf } from './grant-status';

const NOW = new Date('2026-11-26T10:00:00.000Z');
const issued = { grant: 'header.payload.signature', grant_expires_at: '2026-11-26T10:05:00.000Z', grant_redeemed_at: null };

describe('grantStatusOf', () => {
  it('is none without a grant', () => {
    expect(grantStatusOf({ grant: null, grant_expires_at: null, grant_redeemed_at: null }, NOW)).toEqual({ kind: 'none' });
  });

  it('is unused until it expires, expired from its exp on', () => {
    expect(grantStatusOf(issued, NOW)).toEqual({ kind: 'unused', expiresAt: issued.grant_expires_at });
    expect(grantStatusOf(issued, new Date(issued.grant_expires_at))).toEqual({ kind: 'expired', at: issued.grant_expires_at });
  });

  it('is redeemed once redeemed, even after it expired', () => {
    const redeemed = { ...issued, grant_redeemed_at: '2026-11-26T10:01:00.000Z' };
    expect(grantStatusOf(redeemed, new Date('2026-11-27T00:00:00.000Z'))).toEqual({ kind: 'redeemed', at: redeemed.grant_redeemed_at });
  });
});
