import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { beforeMigration } from '../../../db/test/migrating.js';

/**
 * The migration that keeps approval tallies per hour and day as well: the changes written before
 * it, which have no hour, go into the tallies of all time; the hour and day tallies start from
 * the requests themselves; and every change after it carries its request's hour. Checked on
 * PostgreSQL and embedded, with changes left unfolded across the migration.
 */

const databases = beforeMigration('approval_time_tallies');

const TENANT = randomUUID();
const AGENT = randomUUID();
const HOURS = ['2026-03-04T05:06:07.089Z', '2026-03-04T05:59:59.999Z', '2026-03-04T06:00:00.000Z', '2026-03-05T23:10:00.000Z'];

describe.each(databases)('migrating approval tallies on %s', (_name, migratedBefore) => {
  it('keeps the counts of all time, and counts per hour and day from the requests', async () => {
    const database = await migratedBefore();
    try {
      const ids = HOURS.map(() => randomUUID());
      for (const [index, requestedAt] of HOURS.entries()) {
        await database.rows(sql`
          insert into approval_requests (id, tenant_id, trace_id, agent_id, requested_operation, target_integration,
            resource_scope, data_classification, risk_classification, authority_model, delegated_from, flag_reason,
            context_snapshot, action_digest, expires_at, requested_at, status)
          values (${ids[index]}, ${TENANT}, ${randomUUID()}, ${AGENT}, 'write', 'github', 'repo/*', 'internal', 'low',
            'delegated', 'Olivia Owner', 'A human looks first.', '{}'::jsonb, 'sha256:00', now(), ${requestedAt}, 'pending')`);
      }
      // The requests' changes are folded before the migration, as the fold did then; the status changes after are not.
      await database.rows(sql`
        with moved as (delete from approval_tally_changes returning *)
        insert into approval_tallies (tenant_id, agent_id, status, approvals)
        select tenant_id, agent_id, status, sum(approvals) from moved group by 1, 2, 3`);
      await database.rows(sql`update approval_requests set status = 'approved' where id = ${ids[1]} or id = ${ids[2]}`);

      await database.migrate();

      const changes = await database.rows<{ n: number }>(sql`select count(*)::int as n from approval_tally_changes`);
      expect(changes).toEqual([{ n: 0 }]);
      const ofAllTime = await database.rows<{ status: string; approvals: number }>(
        sql`select status, approvals::int from approval_tallies where tenant_id = ${TENANT} order by status`,
      );
      expect(ofAllTime).toEqual([
        { status: 'approved', approvals: 2 },
        { status: 'pending', approvals: 2 },
      ]);
      const perHour = await database.rows<{ hour: string; status: string; approvals: number }>(
        sql`select to_char(hour at time zone 'UTC', 'YYYY-MM-DD HH24') as hour, status, approvals::int
          from approval_hour_tallies where tenant_id = ${TENANT} order by hour, status`,
      );
      expect(perHour).toEqual([
        { hour: '2026-03-04 05', status: 'approved', approvals: 1 },
        { hour: '2026-03-04 05', status: 'pending', approvals: 1 },
        { hour: '2026-03-04 06', status: 'approved', approvals: 1 },
        { hour: '2026-03-05 23', status: 'pending', approvals: 1 },
      ]);
      const perDay = await database.rows<{ day: string; status: string; approvals: number }>(
        sql`select to_char(day at time zone 'UTC', 'YYYY-MM-DD HH24') as day, status, approvals::int
          from approval_day_tallies where tenant_id = ${TENANT} order by day, status`,
      );
      expect(perDay).toEqual([
        { day: '2026-03-04 00', status: 'approved', approvals: 2 },
        { day: '2026-03-04 00', status: 'pending', approvals: 1 },
        { day: '2026-03-05 00', status: 'pending', approvals: 1 },
      ]);

      await database.rows(sql`update approval_requests set status = 'denied' where id = ${ids[3]}`);
      const moved = await database.rows<{ hour: string; status: string; approvals: number }>(
        sql`select to_char(hour at time zone 'UTC', 'YYYY-MM-DD HH24') as hour, status, approvals::int
          from approval_tally_changes order by status`,
      );
      expect(moved).toEqual([
        { hour: '2026-03-05 23', status: 'denied', approvals: 1 },
        { hour: '2026-03-05 23', status: 'pending', approvals: -1 },
      ]);
    } finally {
      await database.close();
    }
  });
});
