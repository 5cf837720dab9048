import { and, count, desc, eq } from 'drizzle-orm';
import { sessions, tenants, users, type Tx, type UserRow } from '@agov/db';
import type { Principal, Role } from '../access/access.js';
import { isUniqueViolation } from '../support/db-errors.js';
import type { IdentityDeps } from './deps.js';
import { AppError, notFound } from '../support/errors.js';
import { pageOf, type Page, type Paged } from '../support/pagination.js';
import { hashPassword } from './passwords.js';

export interface CreateUserInput {
  name: string;
  email: string;
  password: string;
  role: Role;
}

export type UpdateUserInput = Partial<CreateUserInput>;

export async function listUsers(deps: IdentityDeps, principal: Principal, page: Page): Promise<Paged<UserRow>> {
  return pageOf(deps.database.db, users, eq(users.tenantId, principal.tenantId), [desc(users.createdAt), desc(users.id)], page);
}

export async function createUser(deps: IdentityDeps, principal: Principal, input: CreateUserInput): Promise<UserRow> {
  const passwordHash = await hashPassword(input.password);
  try {
    const [row] = await deps.database.db
      .insert(users)
      .values({ tenantId: principal.tenantId, name: input.name, email: input.email, role: input.role, passwordHash })
      .returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error, 'users_email')) throw new AppError('conflict', 'An account with this e-mail already exists');
    throw error;
  }
}

export async function updateUser(deps: IdentityDeps, principal: Principal, id: string, input: UpdateUserInput): Promise<UserRow> {
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
  try {
    return await deps.database.db.transaction(async (tx) => {
      await lockTenant(tx, principal.tenantId);
      const [row] = await tx
        .update(users)
        .set({ name: input.name, email: input.email, role: input.role, passwordHash, updatedAt: deps.clock.now() })
        .where(and(eq(users.id, id), eq(users.tenantId, principal.tenantId)))
        .returning();
      if (!row) throw notFound('User');
      if (input.role !== undefined && input.role !== 'admin') await assertAnAdminRemains(tx, principal.tenantId);
      // A new password or a lower role must not leave old sessions carrying the old rights.
      if (passwordHash !== undefined || input.role !== undefined) {
        await tx.delete(sessions).where(eq(sessions.userId, id));
      }
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'users_email')) throw new AppError('conflict', 'An account with this e-mail already exists');
    throw error;
  }
}

export async function deleteUser(deps: IdentityDeps, principal: Principal, id: string): Promise<void> {
  await deps.database.db.transaction(async (tx) => {
    await lockTenant(tx, principal.tenantId);
    const rows = await tx
      .delete(users)
      .where(and(eq(users.id, id), eq(users.tenantId, principal.tenantId)))
      .returning({ id: users.id });
    if (rows.length === 0) throw notFound('User');
    await assertAnAdminRemains(tx, principal.tenantId);
  });
}

/** Serialises role changes within a tenant, so two demotions cannot both pass the admin check. */
async function lockTenant(tx: Tx, tenantId: string): Promise<void> {
  await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).for('update');
}

/** A tenant never loses its last admin: nobody could manage keys or users again. */
async function assertAnAdminRemains(tx: Tx, tenantId: string): Promise<void> {
  const [admins] = await tx
    .select({ total: count() })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), eq(users.role, 'admin')));
  if ((admins?.total ?? 0) === 0) throw new AppError('conflict', 'A tenant must keep at least one admin');
}
