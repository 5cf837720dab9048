import { createLocalJWKSet, errors, type JSONWebKeySet, jwtVerify } from 'jose';
import { actionDigest, type DigestedAction } from './action-digest.js';

/** The JWS `typ` of every grant: no other token of the service passes for one. */
export const GRANT_TYPE = 'agov-grant+jwt';

interface CommonGrantClaims {
  /** The service's PUBLIC_URL. */
  iss: string;
  /** The agent the action is for. */
  sub: string;
  /** The tenant. */
  tid: string;
  trace_id: string;
  /** `actionDigest` of the action. */
  action_digest: string;
  /** The grant's id: what `redeemGrant` takes. */
  jti: string;
  iat: number;
  exp: number;
}

/** The grant of a request a person approved. */
export interface ApprovedGrantClaims extends CommonGrantClaims {
  decision: 'approved';
  approval_id: string;
  /** Who approved (the vote that completed the quorum), as the audit trail names them. */
  approved_by: string;
}

/** The grant of an action a rule allowed, for a tenant that asks for grants on every allow. */
export interface AllowedGrantClaims extends CommonGrantClaims {
  decision: 'allowed';
  approval_id: null;
  /** The rule that allowed it. */
  policy_rule_id: string;
}

/** What an execution grant asserts (docs/grants.md). Times are Unix seconds. */
export type GrantClaims = ApprovedGrantClaims | AllowedGrantClaims;

export type GrantFailure =
  | 'malformed'
  | 'signature'
  | 'expired'
  | 'action_mismatch'
  | 'tenant_mismatch'
  | 'issuer_mismatch'
  | 'decision_mismatch';

/** A grant that does not permit this action now; `reason` says why. Do not run the action. */
export class GrantVerificationError extends Error {
  override readonly name = 'GrantVerificationError';
  readonly reason: GrantFailure;

  constructor(reason: GrantFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface VerifyGrantOptions {
  /** The tenant the grant must be of (`tid`). */
  tenantId?: string;
  /** The service the grant must come from (`iss`, its PUBLIC_URL). */
  issuer?: string;
  /** The decision the grant must record: `approved` for a tool that acts only on a person's approval. Default either. */
  decision?: GrantClaims['decision'];
  /** Seconds of clock difference tolerated on `exp`. Default 0. */
  clockTolerance?: number;
  /** The time to check expiry at; default now. */
  now?: Date;
}

/** The body of `GET /.well-known/jwks.json?tenant_id=…`. */
export type GrantJwks = JSONWebKeySet;

/**
 * Checks offline that `grant` permits `action` now: signed with EdDSA by one of the keys in
 * `jwks` (the tenant's JWKS, fetched beforehand and cached), typed `agov-grant+jwt`, not
 * expired, and for exactly this action (its `action_digest` equals `actionDigest(action)`);
 * with `tenantId` and `issuer`, also of that tenant and service. Returns the claims; throws a
 * `GrantVerificationError` otherwise. Whether the grant was already used is the service's to
 * say: redeem it (`client.redeemGrant(claims.jti)`) for single use.
 */
export async function verifyGrant(
  grant: string,
  action: DigestedAction,
  jwks: GrantJwks,
  options: VerifyGrantOptions = {},
): Promise<GrantClaims> {
  const keys = createLocalJWKSet(jwks);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(grant, keys, {
      algorithms: ['EdDSA'],
      typ: GRANT_TYPE,
      ...(options.now ? { currentDate: options.now } : {}),
      ...(options.clockTolerance === undefined ? {} : { clockTolerance: options.clockTolerance }),
    }));
  } catch (error) {
    throw failureOf(error);
  }
  const claims = grantClaims(payload);
  if (options.issuer !== undefined && claims.iss !== options.issuer) {
    throw new GrantVerificationError('issuer_mismatch', `the grant was issued by ${claims.iss}, not ${options.issuer}`);
  }
  if (options.decision !== undefined && claims.decision !== options.decision) {
    throw new GrantVerificationError('decision_mismatch', `the grant records ${claims.decision}, not ${options.decision}`);
  }
  if (options.tenantId !== undefined && claims.tid !== options.tenantId) {
    throw new GrantVerificationError('tenant_mismatch', `the grant is of tenant ${claims.tid}, not ${options.tenantId}`);
  }
  if (claims.action_digest !== (await actionDigest(action))) {
    throw new GrantVerificationError('action_mismatch', 'the grant was approved for another action');
  }
  return claims;
}

const STRING_CLAIMS = ['iss', 'sub', 'tid', 'trace_id', 'action_digest', 'jti'] as const;
/** The claims each decision adds: strings, but `approval_id` null for an allow. */
const DECISION_CLAIMS = {
  approved: { approval_id: 'string', approved_by: 'string' },
  allowed: { approval_id: 'null', policy_rule_id: 'string' },
} as const;

function grantClaims(payload: Record<string, unknown>): GrantClaims {
  const missing = STRING_CLAIMS.find((name) => typeof payload[name] !== 'string');
  if (missing) throw new GrantVerificationError('malformed', `the grant has no ${missing} claim`);
  if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number') {
    throw new GrantVerificationError('malformed', 'the grant has no iat or exp claim');
  }
  const decision = payload.decision;
  if (decision !== 'approved' && decision !== 'allowed') {
    throw new GrantVerificationError('malformed', 'the grant records neither an approval nor an allow');
  }
  for (const [name, type] of Object.entries(DECISION_CLAIMS[decision])) {
    const value = payload[name];
    if (type === 'null' ? value !== null : typeof value !== type) {
      throw new GrantVerificationError('malformed', `the grant's ${name} claim is not what an ${decision} grant carries`);
    }
  }
  return payload as unknown as GrantClaims;
}

function failureOf(error: unknown): GrantVerificationError {
  if (error instanceof errors.JWTExpired) return new GrantVerificationError('expired', 'the grant has expired');
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JOSEAlgNotAllowed
  ) {
    return new GrantVerificationError('signature', 'the grant is not signed by a key of this key set');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new GrantVerificationError('malformed', `the grant is not a valid grant token: ${message}`);
}
