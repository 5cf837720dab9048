import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '@agov/db';
import { useTestApp, signupTenant, uniqueEmail } from './harness.js';

const t = useTestApp({ env: { LOG_LEVEL: 'trace' } });

/** Runs a write that must fail, and answers the error it failed with. */
async function failure(write: () => Promise<unknown>): Promise<unknown> {
  try {
    await write();
  } catch (error) {
    return error;
  }
  throw new Error('the write did not fail');
}

/** The log line an error becomes, written as the error handler writes a 500's error. */
function logged(err: unknown): Record<string, unknown> {
  const before = t.logs.length;
  t.app.log.error({ err }, 'request failed');
  const lines = t.logs.slice(before);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!).err;
}

describe('database errors in logs', () => {
  it('keep the SQLSTATE, constraint and table, and drop the statement, its parameters and the row', async () => {
    const tenant = await signupTenant(t.app);
    const secret = `planted-secret-${randomUUID()}`;
    const secretEmail = `${secret}@example.test`;
    const user = { tenantId: tenant.tenantId, name: 'Planted', role: 'viewer' as const, passwordHash: secret };
    await t.runtime.database.db.insert(users).values({ ...user, email: secretEmail });

    // Drizzle's error carries the statement and its parameters; postgres.js's the duplicate value.
    const duplicateId = await failure(() =>
      t.runtime.database.db.insert(users).values({ ...user, id: tenant.userId, email: uniqueEmail('planted') }),
    );
    const duplicateEmail = await failure(() => t.runtime.database.db.insert(users).values({ ...user, email: secretEmail }));
    const raw = await failure(() =>
      t.runtime.database.prepared('insert into users (tenant_id, email, name, role, password_hash) values ($1, $2, $3, $4, $5)', [
        tenant.tenantId,
        secretEmail,
        'Planted',
        'viewer',
        secret,
      ]),
    );
    // PostgreSQL quotes a malformed value in the message itself.
    const malformed = await failure(() => t.runtime.database.db.execute(sql`select ${secret}::uuid`));
    expect(String((duplicateId as Error).message)).toContain(secret);

    const unique = (constraint: string) => `duplicate key value violates unique constraint "${constraint}"`;
    expect([logged(duplicateId), logged(duplicateEmail), logged(raw), logged(malformed)]).toEqual([
      { type: 'DrizzleQueryError', message: unique('users_pkey'), code: '23505', constraint: 'users_pkey', table: 'users' },
      { type: 'DrizzleQueryError', message: unique('users_email'), code: '23505', constraint: 'users_email', table: 'users' },
      { type: 'PostgresError', message: unique('users_email'), code: '23505', constraint: 'users_email', table: 'users' },
      { type: 'DrizzleQueryError', message: 'invalid input syntax for type uuid: "…"', code: '22P02' },
    ]);
    const text = t.logs.join('\n');
    expect(text).not.toContain(secret);
    expect(text).not.toMatch(/Failed query|insert into/i);
  });

  it('are reduced the same way when they are the cause of another error', async () => {
    const secret = `planted-secret-${randomUUID()}`;
    const cause = await failure(() => t.runtime.database.db.execute(sql`select ${secret}::uuid`));
    const line = logged(new Error('job failed', { cause }));
    expect(line).toEqual({
      type: 'Error',
      message: 'job failed',
      stack: expect.stringContaining('job failed'),
      cause: { type: 'DrizzleQueryError', message: 'invalid input syntax for type uuid: "…"', code: '22P02' },
    });
    expect(t.logs.join('\n')).not.toContain(secret);
  });

  it('keep the stack of any other error', () => {
    const line = logged(new Error('plain failure'));
    expect(line).toMatchObject({ type: 'Error', message: 'plain failure', stack: expect.stringContaining('plain failure') });
  });
});
