import { aliasedTable, and, desc, eq, gt, isNull, lte, type SQL, sql } from 'drizzle-orm';
import { users, voteDelegations, type Executor, type Tx, type UserRow, type VoteDelegationRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { AppError, notFound } from '../support/errors.js';
import { DAY_MS } from '../support/time-range.js';

/** A delegation lasts at most this long: an absence, not a standing transfer of a vote. */
export const MAX_DELEGATION_DAYS = 90;

export interface DelegationInput {
  delegate_email: string;
  starts_at?: string;
  ends_at: string;
  reason?: string;
}

type Person = Pick<UserRow, 'id' | 'name' | 'email'>;

/** A delegation with both people, as the API shows it. */
export interface DelegationView {
  delegation: VoteDelegationRow;
  delegator: Person;
  delegate: Person;
}

const invalid = (field: string, message: string) =>
  new AppError('validation_error', `Invalid body: ${field} ${message}`, { fields: [{ field, message }] });

/** The signed-in reviewer behind a request; delegations are between people, so keys have none. */
function personOf(principal: Principal): Person {
  if (principal.kind !== 'session' || !principal.user) {
    throw new AppError('forbidden', 'only a signed-in reviewer can delegate or cast a delegated vote');
  }
  return principal.user;
}

/** A reviewer or admin of the tenant by e-mail, in any letter case; viewers cannot vote. */
async function reviewerByEmail(executor: Executor, tenantId: string, email: string): Promise<Person | undefined> {
  const [user] = await executor
    .select({ id: users.id, name: users.name, email: users.email, role: users.role })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), sql`lower(${users.email}) = ${email.toLowerCase()}`));
  return user && user.role !== 'viewer' ? user : undefined;
}

/**
 * The signed-in reviewer hands their votes to another reviewer of the tenant from `starts_at`
 * (now when omitted) until `ends_at`, at most 90 days. While it lasts, the delegate may vote
 * `on_behalf_of` them; the vote names both.
 */
export async function createDelegation(deps: CoreDeps, principal: Principal, input: DelegationInput): Promise<DelegationView> {
  const delegator = personOf(principal);
  const now = deps.clock.now();
  const startsAt = input.starts_at === undefined ? now : new Date(input.starts_at);
  const endsAt = new Date(input.ends_at);
  if (endsAt <= startsAt || endsAt <= now) throw invalid('ends_at', 'must be after starts_at and in the future');
  if (endsAt.getTime() - startsAt.getTime() > MAX_DELEGATION_DAYS * DAY_MS) {
    throw invalid('ends_at', `must be at most ${MAX_DELEGATION_DAYS} days after starts_at`);
  }
  const delegate = await reviewerByEmail(deps.database.db, principal.tenantId, input.delegate_email);
  if (!delegate) throw invalid('delegate_email', 'is not a reviewer or admin of this organization');
  if (delegate.id === delegator.id) throw invalid('delegate_email', 'is your own address');
  const [delegation] = await deps.database.db
    .insert(voteDelegations)
    .values({
      tenantId: principal.tenantId,
      delegatorId: delegator.id,
      delegateId: delegate.id,
      startsAt,
      endsAt,
      reason: input.reason ?? null,
      createdAt: now,
    })
    .returning();
  return { delegation: delegation!, delegator, delegate: { id: delegate.id, name: delegate.name, email: delegate.email } };
}

const delegators = aliasedTable(users, 'delegators');
const delegates = aliasedTable(users, 'delegates');

/** The tenant's delegations, newest first; with `current`, only those not ended or revoked. */
export async function listDelegations(deps: CoreDeps, principal: Principal, current: boolean): Promise<DelegationView[]> {
  const inForce = and(isNull(voteDelegations.revokedAt), gt(voteDelegations.endsAt, deps.clock.now()));
  return delegationViews(deps.database.db, and(eq(voteDelegations.tenantId, principal.tenantId), current ? inForce : undefined)!);
}

/** At most 500: a tenant has a few reviewers, and each delegates for an absence at a time. */
function delegationViews(executor: Executor, where: SQL): Promise<DelegationView[]> {
  return executor
    .select({
      delegation: voteDelegations,
      delegator: { id: delegators.id, name: delegators.name, email: delegators.email },
      delegate: { id: delegates.id, name: delegates.name, email: delegates.email },
    })
    .from(voteDelegations)
    .innerJoin(delegators, eq(delegators.id, voteDelegations.delegatorId))
    .innerJoin(delegates, eq(delegates.id, voteDelegations.delegateId))
    .where(where)
    .orderBy(desc(voteDelegations.createdAt), desc(voteDelegations.id))
    .limit(500);
}

/** Ends a delegation now; only its delegator or an admin may. Revoking twice changes nothing. */
export async function revokeDelegation(deps: CoreDeps, principal: Principal, id: string): Promise<DelegationView> {
  const person = personOf(principal);
  const [found] = await delegationViews(
    deps.database.db,
    and(eq(voteDelegations.id, id), eq(voteDelegations.tenantId, principal.tenantId))!,
  );
  if (!found) throw notFound('Delegation');
  if (found.delegator.id !== person.id && principal.kind === 'session' && principal.role !== 'admin') {
    throw new AppError('forbidden', 'only the reviewer who delegated, or an admin, can revoke a delegation');
  }
  const [revoked] = await deps.database.db
    .update(voteDelegations)
    .set({ revokedAt: deps.clock.now() })
    .where(and(eq(voteDelegations.id, id), isNull(voteDelegations.revokedAt)))
    .returning();
  return { ...found, delegation: revoked ?? found.delegation };
}

/**
 * The reviewer with this e-mail, when they have delegated their votes to the signed-in caller
 * for a period that includes `now` and is not revoked; otherwise the vote is refused.
 */
export async function activeDelegator(tx: Tx, principal: Principal, email: string, now: Date): Promise<Person> {
  const delegate = personOf(principal);
  const delegator = await reviewerByEmail(tx, principal.tenantId, email);
  if (delegator) {
    const [delegation] = await tx
      .select({ id: voteDelegations.id })
      .from(voteDelegations)
      .where(
        and(
          eq(voteDelegations.tenantId, principal.tenantId),
          eq(voteDelegations.delegatorId, delegator.id),
          eq(voteDelegations.delegateId, delegate.id),
          lte(voteDelegations.startsAt, now),
          gt(voteDelegations.endsAt, now),
          isNull(voteDelegations.revokedAt),
        ),
      )
      .limit(1);
    if (delegation) return { id: delegator.id, name: delegator.name, email: delegator.email };
  }
  throw new AppError('forbidden', `no delegation from ${email} to you is in force`);
}
