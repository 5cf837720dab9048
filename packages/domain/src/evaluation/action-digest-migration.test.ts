import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { beforeMigration } from '../../../db/test/migrating.js';
import { actionDigest, type DigestedAction } from './action-digest.js';

/**
 * The migration that adds `action_digest` computes it in SQL for the requests already stored.
 * Here requests are stored on a database migrated up to just before it, the migration runs,
 * and each stored digest must be the one evaluate computes now, on PostgreSQL and embedded.
 */

const databases = beforeMigration('action_digest');

/** Text evaluate accepts: any character but NUL, which neither a text column nor jsonb holds. */
const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((value) => !value.includes('\u0000'));
const context = fc
  .dictionary(fc.string({ unit: 'binary', maxLength: 8 }), fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), { maxKeys: 6 })
  .filter((value) => !JSON.stringify(value).includes('\\u0000'));

/** Contexts that single out each part of JCS, then generated ones. */
const CONTEXTS: Record<string, unknown>[] = [
  {},
  { numbers: [0, -0, 1, -1, 0.1, 1.5, 100, 1e20, 1e21, 123456789012345680000, 1e-6, 1e-7, -2.5e-10, 5e-324, 1.7976931348623157e308] },
  { a: 1, B: 2, '': 3, é: 4, e: 5, '\uff01': 6, '\u{1F600}': 7, '\u007f': 8, '10': 9, '9': 10 },
  { escapes: 'a\u0001\u001f\b\t\n\f\r"\\/\u2028\u007f€😀', '\u0001\n"\\': true, nothing: null, no: false },
  { nested: { z: { y: [1, { x: 'y', w: [] }, [[]]] } }, emoji: '👍🏽', cjk: '中文' },
  ...fc.sample(context, { numRuns: 200, seed: 20261126 }),
];

describe.each(databases)('migrating stored approval requests on %s', (_name, migratedBefore) => {
  it('gives every request the digest evaluate computes', async () => {
    const database = await migratedBefore();
    try {
      const fields = fc.sample(fc.tuple(text, text, text, text), { numRuns: CONTEXTS.length, seed: 7 });
      const stored: (DigestedAction & { id: string })[] = CONTEXTS.map((each, i) => {
        const [operation, target, scope, classification] = fields[i]!;
        return {
          id: randomUUID(),
          agent_id: randomUUID(),
          operation,
          target_integration: target,
          resource_scope: scope,
          data_classification: classification,
          context: each,
        };
      });
      for (const request of stored) {
        // As evaluate stores it: the context as JSON.stringify writes it, into jsonb.
        await database.rows(sql`
          insert into approval_requests (id, tenant_id, trace_id, agent_id, requested_operation, target_integration,
            resource_scope, data_classification, risk_classification, authority_model, delegated_from, flag_reason,
            context_snapshot, expires_at, requested_at)
          values (${request.id}, ${randomUUID()}, ${randomUUID()}, ${request.agent_id}, ${request.operation},
            ${request.target_integration}, ${request.resource_scope}, ${request.data_classification}, 'low', 'delegated',
            'Olivia Owner', 'A human looks first.', ${JSON.stringify(request.context)}::jsonb, now(), now())`);
      }

      await database.migrate();

      const digests = await database.rows<{ id: string; action_digest: string }>(sql`select id, action_digest from approval_requests`);
      const byId = new Map(digests.map((row) => [row.id, row.action_digest]));
      const mismatches = stored.filter((request) => byId.get(request.id) !== actionDigest(request));
      expect(mismatches).toEqual([]);
      expect(byId.size).toBe(stored.length);
      // The helper functions do not outlive the migration.
      expect(await database.rows(sql`select proname from pg_proc where proname like 'jcs%'`)).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
