import { and, eq, sql } from 'drizzle-orm';
import { subscriptions, tenants, users, type TenantRow, type Tx, type UserRow } from '@agov/db';
import { AGENT_RUNTIME_SCOPES, SCOPES, type Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import type { IdentityDeps } from './deps.js';
import { AppError, notFound } from '../support/errors.js';
import { createApiKey, type IssuedApiKey } from './api-keys.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { startSession } from './sessions.js';
import { isUniqueViolation } from '../support/db-errors.js';
import { admitLoginAttempt, forgetLoginFailures } from '../limits/login-throttle.js';

export interface SignupInput {
  organization_name: string;
  name: string;
  email: string;
  password: string;
}

export interface SignedUp {
  tenant: TenantRow;
  user: UserRow;
  apiKey: IssuedApiKey;
  session: { token: string; expiresAt: Date };
}

/** A new tenant on the free plan, its first admin, a session, and an agent-runtime key. */
export async function signup(deps: IdentityDeps, input: SignupInput): Promise<SignedUp> {
  return foundTenant(deps, input, async (tx, founded) => {
    const principal = adminOf(founded);
    const apiKey = await createApiKey(deps, principal, { name: 'Agent runtime', scopes: [...AGENT_RUNTIME_SCOPES] }, tx);
    const session = await startSession(deps, founded.user, tx);
    return { ...founded, apiKey, session };
  });
}

export interface Bootstrapped {
  tenant: TenantRow;
  user: UserRow;
  apiKey: IssuedApiKey;
}

/**
 * For self-hosters without the dashboard (`agov keys create`): a new tenant as signup makes
 * it, and an admin key holding every scope instead of signup's agent-runtime key and session.
 */
export async function bootstrapTenant(deps: CoreDeps, input: SignupInput & { key_name: string }): Promise<Bootstrapped> {
  return foundTenant(deps, input, async (tx, founded) => {
    const apiKey = await createApiKey(deps, adminOf(founded), { name: input.key_name, scopes: [...SCOPES] }, tx);
    return { ...founded, apiKey };
  });
}

/**
 * An admin key holding every scope for an existing tenant (`agov keys create --tenant-id`).
 * Whoever runs it holds the database itself, so it acts as an admin with no user record.
 */
export async function issueAdminKey(
  deps: CoreDeps,
  tenantId: string,
  keyName: string,
): Promise<{ tenant: TenantRow; apiKey: IssuedApiKey }> {
  const [tenant] = await deps.database.db.select().from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw notFound('Tenant');
  const principal: Principal = { kind: 'session', tenantId, role: 'admin', user: null, sessionId: null };
  const apiKey = await createApiKey(deps, principal, { name: keyName, scopes: [...SCOPES] });
  return { tenant, apiKey };
}

/**
 * A tenant on the free plan with its first admin and its subscription, then `complete`'s
 * work, all in one transaction: an e-mail address already taken leaves nothing behind.
 */
async function foundTenant<T>(
  deps: CoreDeps,
  input: SignupInput,
  complete: (tx: Tx, founded: { tenant: TenantRow; user: UserRow }) => Promise<T>,
): Promise<T> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await deps.database.db.transaction(async (tx) => {
      const [tenant] = await tx.insert(tenants).values({ name: input.organization_name }).returning();
      const [user] = await tx
        .insert(users)
        .values({ tenantId: tenant!.id, email: input.email, name: input.name, role: 'admin', passwordHash })
        .returning();
      await tx.insert(subscriptions).values({ tenantId: tenant!.id, currentPeriodEnd: oneMonthAfter(deps.clock.now()) });
      return complete(tx, { tenant: tenant!, user: user! });
    });
  } catch (error) {
    if (isUniqueViolation(error, 'users_email')) throw new AppError('conflict', 'An account with this e-mail already exists');
    throw error;
  }
}

const adminOf = ({ tenant, user }: { tenant: TenantRow; user: UserRow }): Principal => ({
  kind: 'session',
  tenantId: tenant.id,
  role: 'admin',
  user,
  sessionId: null,
});

export async function login(deps: IdentityDeps, input: { email: string; password: string }, clientAddress: string) {
  await admitLoginAttempt(deps, input.email, clientAddress);
  const [user] = await deps.database.db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, input.email.toLowerCase()))
    .limit(1);
  const valid = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !valid) throw new AppError('unauthorized', 'Invalid e-mail or password');
  await forgetLoginFailures(deps, input.email, clientAddress);
  const [tenant] = await deps.database.db.select().from(tenants).where(eq(tenants.id, user.tenantId));
  const session = await startSession(deps, user);
  return { user, tenant: tenant!, session };
}

export async function whoAmI(deps: IdentityDeps, principal: Principal): Promise<{ tenant: TenantRow; user: UserRow | null }> {
  const { db } = deps.database;
  const [tenant] = await db.select().from(tenants).where(eq(tenants.id, principal.tenantId));
  if (!tenant) throw notFound('Tenant');
  const userId = principal.kind === 'session' ? principal.user?.id : undefined;
  if (!userId) return { tenant, user: null };
  const [user] = await db
    .select()
    .from(users)
    .where(and(eq(users.id, userId), eq(users.tenantId, principal.tenantId)));
  return { tenant, user: user ?? null };
}

function oneMonthAfter(date: Date): Date {
  const next = new Date(date);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}
