import { randomUUID } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { executionGrants, policyRules, type ApprovalRow, type ExecutionGrantRow, type Tx } from '@agov/db';
import type { GrantSigningKey } from '../caches/grant-keys.js';
import { deciderName, type Principal } from '../access/access.js';
import type { NewEvent } from '../audit/chain-events.js';
import type { CoreDeps } from '../caches/caches.js';
import { recordEffects } from '../outbox/record.js';
import { AppError, notFound } from '../support/errors.js';
import { appendToTrace, lockTraceOf } from '../traces/chain.js';
import type { GrantDeps } from './deps.js';
import { signGrant } from './jws.js';
import { currentSigningKey } from './keys.js';
import { grantSettings } from './settings.js';

/** How long a grant lasts when the rule that decided sets no `max_session_ttl`. */
export const DEFAULT_GRANT_TTL_SECONDS = 300;

/** What a grant is for: the action by digest, in its trace, approved by a person or allowed by a rule. */
type GrantSubject = Pick<ExecutionGrantRow, 'tenantId' | 'traceId'> & { agentId: string; actionDigest: string } & (
    | { decision: 'approved'; approvalId: string; approvedBy: string }
    | { decision: 'allowed'; policyRuleId: string }
  );

/**
 * The grant's row, its token signed: claims `iss`, `sub` (agent), `tid`, `trace_id`,
 * `approval_id`, `action_digest`, `decision`, `jti`, `iat`, `exp`, and `approved_by` for an
 * approval or `policy_rule_id` for an `allow` (whose `approval_id` is null).
 */
async function signedGrant(
  deps: GrantDeps,
  key: GrantSigningKey,
  subject: GrantSubject,
  ttlSeconds: number,
  now: Date,
): Promise<ExecutionGrantRow> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  const jti = randomUUID();
  const approvalId = subject.decision === 'approved' ? subject.approvalId : null;
  const claims = {
    iss: deps.publicUrl,
    sub: subject.agentId,
    tid: subject.tenantId,
    trace_id: subject.traceId,
    approval_id: approvalId,
    action_digest: subject.actionDigest,
    decision: subject.decision,
    ...(subject.decision === 'approved' ? { approved_by: subject.approvedBy } : { policy_rule_id: subject.policyRuleId }),
    jti,
    iat,
    exp,
  };
  return {
    jti,
    tenantId: subject.tenantId,
    approvalRequestId: approvalId,
    traceId: subject.traceId,
    kid: key.kid,
    token: await signGrant(claims, key.kid, key.privateKey),
    issuedAt: now,
    expiresAt: new Date(exp * 1000),
    redeemedAt: null,
    redeemedBy: null,
  };
}

/**
 * Signs and stores the grant of a request just approved, in the approving transaction: the
 * grant exists exactly when the approval commits. It expires after the matching rule's
 * `max_session_ttl` seconds, or `DEFAULT_GRANT_TTL_SECONDS`. A service that cannot seal a
 * signing key (no SECRETS_KEY on a PostgreSQL server in production) approves without one.
 */
export async function issueGrant(deps: GrantDeps, tx: Tx, approval: ApprovalRow, approvedBy: string, now: Date): Promise<void> {
  if (deps.secrets.keyId === null) return;
  const key = await currentSigningKey(deps, tx, approval.tenantId, now);
  const subject = { ...approval, approvalId: approval.id, decision: 'approved', approvedBy } as const;
  await tx.insert(executionGrants).values(await signedGrant(deps, key, subject, await ttlSecondsOf(tx, approval), now));
}

async function ttlSecondsOf(tx: Tx, approval: ApprovalRow): Promise<number> {
  if (!approval.policyRuleId) return DEFAULT_GRANT_TTL_SECONDS;
  const [rule] = await tx
    .select({ ttl: policyRules.maxSessionTtl })
    .from(policyRules)
    .where(and(eq(policyRules.id, approval.policyRuleId), eq(policyRules.tenantId, approval.tenantId)));
  return rule?.ttl ?? DEFAULT_GRANT_TTL_SECONDS;
}

/**
 * Whether evaluate signs a grant for each `allow` of the tenant: it asked (`issue_on_allow`),
 * and the service can seal a signing key. From this process's cache.
 */
export async function issuesAllowGrants(deps: GrantDeps, tenantId: string): Promise<boolean> {
  return deps.secrets.keyId !== null && (await grantSettings(deps, tenantId)).issueOnAllow;
}

/**
 * The grant of an action a rule allows, for evaluate to write with the trace. It expires after
 * the allowing rule's `max_session_ttl` seconds, or `DEFAULT_GRANT_TTL_SECONDS`. The key comes
 * from this process's cache, so an `allow` pays only the signature.
 */
export async function allowGrant(
  deps: GrantDeps,
  subject: Omit<Extract<GrantSubject, { decision: 'allowed' }>, 'decision'>,
  ttlSeconds: number | null,
  now: Date,
): Promise<ExecutionGrantRow> {
  const key =
    deps.caches.grantKeys.get(subject.tenantId) ??
    (await deps.database.db.transaction((tx) => currentSigningKey(deps, tx, subject.tenantId, now)));
  return signedGrant(deps, key, { ...subject, decision: 'allowed' }, ttlSeconds ?? DEFAULT_GRANT_TTL_SECONDS, now);
}

/** The grant of an approved request, or null (a request not approved, or approved without one). */
export async function grantOf(
  deps: CoreDeps,
  approval: Pick<ApprovalRow, 'id' | 'tenantId' | 'status'>,
): Promise<ExecutionGrantRow | null> {
  if (approval.status !== 'approved') return null;
  const [grant] = await deps.database.db
    .select()
    .from(executionGrants)
    .where(and(eq(executionGrants.approvalRequestId, approval.id), eq(executionGrants.tenantId, approval.tenantId)));
  return grant ?? null;
}

/**
 * Marks a grant used, once: one conditional UPDATE (not redeemed, not expired), so of any
 * number of concurrent redeems exactly one succeeds. In the same transaction its trace gets a
 * `grant_redeemed` event naming the credential; the trace's outcome stays as it was.
 */
export async function redeemGrant(deps: CoreDeps, principal: Principal, jti: string): Promise<ExecutionGrantRow> {
  const now = deps.clock.now();
  const redeemedBy = deciderName(principal);
  const redeemed = await deps.database.db.transaction(async (tx) => {
    const [grant] = await tx
      .update(executionGrants)
      .set({ redeemedAt: now, redeemedBy })
      .where(
        and(
          eq(executionGrants.jti, jti),
          eq(executionGrants.tenantId, principal.tenantId),
          isNull(executionGrants.redeemedAt),
          gt(executionGrants.expiresAt, now),
        ),
      )
      .returning();
    if (!grant) return null;
    const trace = await lockTraceOf(tx, grant, `grant ${grant.jti}`);
    const { effect } = await appendToTrace(tx, trace, [redeemedEvent(grant, redeemedBy)], {}, now);
    await recordEffects(tx, grant.tenantId, [effect], now);
    return grant;
  });
  if (redeemed) return redeemed;
  throw await redeemRefusal(deps, principal, jti);
}

function redeemedEvent(grant: ExecutionGrantRow, redeemedBy: string): NewEvent {
  return {
    event_type: 'grant_redeemed',
    actor_type: 'agent',
    actor_name: redeemedBy,
    description: `Execution grant ${grant.jti} redeemed by ${redeemedBy}`,
    status: 'redeemed',
    approval_request_id: grant.approvalRequestId,
    metadata: { jti: grant.jti },
  };
}

/** Why a redeem found nothing to mark: no such grant in the tenant, already redeemed, or expired. */
async function redeemRefusal(deps: CoreDeps, principal: Principal, jti: string): Promise<AppError> {
  const [grant] = await deps.database.db
    .select()
    .from(executionGrants)
    .where(and(eq(executionGrants.jti, jti), eq(executionGrants.tenantId, principal.tenantId)));
  if (!grant) return notFound('Grant');
  if (grant.redeemedAt) {
    return new AppError('conflict', 'grant has already been redeemed', { redeemed_at: grant.redeemedAt.toISOString() }, grant.traceId);
  }
  return new AppError('conflict', 'grant has expired', { expires_at: grant.expiresAt.toISOString() }, grant.traceId);
}
