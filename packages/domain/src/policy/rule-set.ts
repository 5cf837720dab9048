import { taggedSha256 } from '../support/sha256.js';
import { asc, eq, sql } from 'drizzle-orm';
import { policyRules, type Executor, type Tx } from '@agov/db';

/**
 * Serialises writes to a tenant's rules against a bulk apply: every single-rule write takes the
 * lock shared, so they still run side by side, and an apply takes it exclusive, so between its
 * revision check and its commit no other write to the tenant's rules can land. Held until the
 * transaction ends.
 */
export async function lockRuleSet(tx: Tx, tenantId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  const key = sql`hashtextextended('policy_rules:' || ${tenantId}, 0)`;
  await tx.execute(mode === 'shared' ? sql`select pg_advisory_xact_lock_shared(${key})` : sql`select pg_advisory_xact_lock(${key})`);
}

/**
 * The revision of a tenant's rules: `sha256:` + hex SHA-256 of one line `id:version:active|inactive`
 * per rule, ordered by id. Every create, PATCH and delete changes it (a new id, a new version,
 * a rule deactivated); it is opaque to clients, who only compare it.
 */
export async function ruleSetRevision(executor: Executor, tenantId: string): Promise<string> {
  const rules = await executor
    .select({ id: policyRules.id, version: policyRules.policyVersion, isActive: policyRules.isActive })
    .from(policyRules)
    .where(eq(policyRules.tenantId, tenantId))
    .orderBy(asc(policyRules.id));
  const lines = rules.map(({ id, version, isActive }) => `${id}:${version}:${isActive ? 'active' : 'inactive'}\n`);
  return taggedSha256(lines.join(''));
}
