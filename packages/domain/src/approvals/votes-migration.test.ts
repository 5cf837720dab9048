import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ApprovalVote } from '@agov/db';
import { beforeMigration } from '../../../db/test/migrating.js';

/**
 * The migration that keeps votes on each request gives every request decided before it the one
 * vote that decided it, named as its trace named the decider; pending and expired requests get
 * none. Checked on PostgreSQL and embedded.
 */

const databases = beforeMigration('approval_quorum');

const DECIDED_AT = '2026-03-04T05:06:07.089Z';

describe.each(databases)('migrating decided approval requests on %s', (_name, migratedBefore) => {
  it('records the deciding vote of each decided request, and none for the others', async () => {
    const database = await migratedBefore();
    try {
      const requests = (['approved', 'denied', 'pending', 'expired'] as const).map((status) => ({
        id: randomUUID(),
        traceId: randomUUID(),
        status,
      }));
      for (const { id, traceId, status } of requests) {
        const decided = status === 'approved' || status === 'denied';
        await database.rows(sql`
          insert into approval_requests (id, tenant_id, trace_id, agent_id, requested_operation, target_integration,
            resource_scope, data_classification, risk_classification, authority_model, delegated_from, flag_reason,
            context_snapshot, action_digest, expires_at, requested_at, status, decided_at, approver_name, decision_note)
          values (${id}, ${randomUUID()}, ${traceId}, ${randomUUID()}, 'write', 'github', 'repo/*', 'internal', 'low',
            'delegated', 'Olivia Owner', 'A human looks first.', '{}'::jsonb, 'sha256:00', now(), now(), ${status},
            ${decided ? DECIDED_AT : null}, ${decided ? 'Rita' : null}, ${status === 'denied' ? 'Frozen' : null})`);
        if (!decided) continue;
        await database.rows(sql`
          insert into trace_events (id, tenant_id, trace_id, seq, event_type, actor_type, actor_name, description, status,
            timestamp, approval_request_id)
          values (${randomUUID()}, ${randomUUID()}, ${traceId}, 6, ${status === 'approved' ? 'approval_granted' : 'approval_denied'},
            'human_reviewer', ${`Rita Reviewer <rita-${status}@example.com>`}, 'Decided', ${status}, ${DECIDED_AT}, ${id})`);
      }

      await database.migrate();

      const rows = await database.rows<{ id: string; votes: ApprovalVote[]; approvals_required: number }>(
        sql`select id, votes, approvals_required from approval_requests`,
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      const [approved, denied, pending, expired] = requests.map((request) => byId.get(request.id));
      const vote = (status: string, decision: string, note: string | null) => {
        const principal = `Rita Reviewer <rita-${status}@example.com>`;
        return {
          decision,
          identity: `recorded:${principal}`,
          counts_as: `recorded:${principal}`,
          principal,
          on_behalf_of: null,
          approver_name: 'Rita',
          decision_note: note,
          at: DECIDED_AT,
        };
      };
      expect(approved).toEqual({ id: requests[0]!.id, votes: [vote('approved', 'approve', null)], approvals_required: 1 });
      expect(denied).toEqual({ id: requests[1]!.id, votes: [vote('denied', 'deny', 'Frozen')], approvals_required: 1 });
      expect(pending?.votes).toEqual([]);
      expect(expired?.votes).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
