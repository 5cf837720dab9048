import { and, eq, gt } from 'drizzle-orm';
import { sessions, tenants, users, type Executor } from '@agov/db';
import type { Principal, Role } from '../access/access.js';
import type { IdentityDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { randomToken } from '../support/secrets.js';
import { sha256Hex } from '../support/sha256.js';

/** Starts a session; the returned token goes into the cookie and is stored only as a hash. */
export async function startSession(
  deps: IdentityDeps,
  user: { id: string; tenantId: string },
  executor: Executor = deps.database.db,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken();
  const expiresAt = new Date(deps.clock.now().getTime() + deps.sessionTtlMs);
  await executor.insert(sessions).values({ tenantId: user.tenantId, userId: user.id, tokenHash: sha256Hex(token), expiresAt });
  return { token, expiresAt };
}

/** Who a session cookie's token is: the signed-in user and their role; 401 when the session expired or was ended. */
export async function principalOfSession(deps: IdentityDeps, token: string): Promise<Principal> {
  const [row] = await deps.database.db
    .select({ sessionId: sessions.id, tenantId: sessions.tenantId, id: users.id, name: users.name, email: users.email, role: users.role })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), gt(sessions.expiresAt, deps.clock.now())))
    .limit(1);
  if (!row) throw new AppError('unauthorized', 'Session expired or signed out');
  return {
    kind: 'session',
    tenantId: row.tenantId,
    role: row.role as Role,
    user: { id: row.id, name: row.name, email: row.email },
    sessionId: row.sessionId,
  };
}

export async function endSession(deps: IdentityDeps, principal: Principal): Promise<void> {
  if (principal.kind === 'session' && principal.sessionId) {
    await deps.database.db.delete(sessions).where(eq(sessions.id, principal.sessionId));
  }
}

/** `X-Dev-Bypass` acts as an admin of the tenant named Development, created on first use. */
export async function developmentPrincipal(deps: IdentityDeps): Promise<Principal> {
  const { db } = deps.database;
  await db.insert(tenants).values({ name: 'Development', isDevelopment: true }).onConflictDoNothing();
  const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.isDevelopment, true)).limit(1);
  return { kind: 'session', tenantId: tenant!.id, role: 'admin', user: null, sessionId: null };
}
