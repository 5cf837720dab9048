import { Type } from '@sinclair/typebox';
import { Body, NullableTimestamp, Timestamp } from './common.js';

export const GrantParams = Type.Object({ jti: Type.String({ format: 'uuid', description: "The grant's `jti` claim" }) });

/** A compact JWS as the approval detail and status poll carry it; null until approved (and for requests approved before grants). */
export const GrantToken = Type.Union(
  [
    Type.String({
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      // A real header; the claims cut down to `jti` to keep the example short.
      examples: [
        'eyJhbGciOiJFZERTQSIsInR5cCI6ImFnb3YtZ3JhbnQrand0Iiwia2lkIjoiTmYzQjFiQzBwOVZiWTNyQzVtRTJ1WHFrMXpKOHdxNG83eVRuNnMwYUwyYyJ9' +
          '.eyJqdGkiOiI3ZDBjM2Y0ZS01YjZhLTRjMWQtOWU4Zi0yYTNiNGM1ZDZlN2YifQ' +
          '.luccB3yGWkbm-Jb5lHDM1D4eHMdUdAPWbTcVhAVvxU5sfuAtgr9drATSE3Qjo13PWTgcPeQ8G2OqoWwR1hR-0A',
      ],
      description:
        'The execution grant: a compact JWS (alg EdDSA, typ agov-grant+jwt) signed with the tenant key published at /.well-known/jwks.json; a tool verifies it offline before it acts (docs/grants.md)',
    }),
    Type.Null(),
  ],
  { description: 'The execution grant once the request is approved, else null' },
);

export const RedeemedGrant = Type.Object(
  {
    jti: Type.String({ format: 'uuid' }),
    approval_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The approved request, or null for the grant of an allowed action',
    }),
    trace_id: Type.String({ format: 'uuid' }),
    redeemed_at: NullableTimestamp,
  },
  { title: 'RedeemedGrant' },
);

export const GrantKey = Type.Object(
  {
    kid: Type.String({ description: 'The key id: the RFC 7638 thumbprint of the public key, the JWS header `kid` of the grants it signs' }),
    created_at: Timestamp,
  },
  { title: 'GrantKey' },
);

export const JwksQuery = Type.Object({ tenant_id: Type.String({ format: 'uuid', description: 'The tenant whose keys to list' }) });

const Jwk = Type.Object(
  {
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String({ description: 'The public key, base64url' }),
    kid: Type.String(),
    alg: Type.Literal('EdDSA'),
    use: Type.Literal('sig'),
  },
  { title: 'GrantJwk' },
);

export const Jwks = Type.Object(
  {
    keys: Type.Array(Jwk, {
      description: "The tenant's current key and its retired keys still published; empty for a tenant with no keys, or none at all",
    }),
  },
  { title: 'Jwks' },
);

const issueOnAllow = Type.Boolean({
  description:
    'Evaluate signs an execution grant for every allow (in its answer, `grant`), as for approved requests. Off for a new tenant.',
});

export const GrantSettingsBody = Body({ issue_on_allow: issueOnAllow });

export const GrantSettings = Type.Object({ issue_on_allow: issueOnAllow }, { title: 'GrantSettings' });
