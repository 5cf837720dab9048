import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvalRequests, outbox, traceEvents, traces } from '@agov/db';
import { expectErrorBody } from './assertions.js';
import { action } from './fixtures.js';
import { useTestApp } from './harness.js';
import { evaluate, subscribeToAuditEvents, tenantWithPolicy } from './scenarios.js';

/**
 * Concurrent evaluations are committed together, many to a statement (evaluationWriter). A
 * trigger of this test's own database refuses one resource scope, standing in for any
 * evaluation that cannot be written: it must fail alone, and leave nothing behind.
 */
const POISONED = 'repo/poisoned';
const CONCURRENT = 30;

const t = useTestApp({ ownDatabase: true });
beforeAll(async () => {
  await t.runtime.database.db.execute(
    sql.raw(`
    create function refuse_poisoned() returns trigger language plpgsql as $$
    begin
      if new.resource_scope = '${POISONED}' then raise exception 'poisoned evaluation'; end if;
      return new;
    end $$;
    create trigger refuse_poisoned before insert on traces for each row execute function refuse_poisoned();`),
  );
});

describe('group commit', () => {
  it('answers an evaluation whose batch fails with an error, commits the others, and leaves nothing of it', async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'approval_required');
    await subscribeToAuditEvents(t.app, tenant);
    // Caches warm, so that every request below reaches the writer before any write returns.
    expect((await evaluate(t.app, tenant, action(agent.id))).statusCode).toBe(200);

    const responses = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        evaluate(t.app, tenant, action(agent.id, i === CONCURRENT / 2 ? { resource_scope: POISONED } : {})),
      ),
    );

    const poisoned = responses[CONCURRENT / 2]!;
    expectErrorBody(poisoned, 500, { error: 'internal_error', message: 'Internal server error' });
    const answered = responses.filter((response) => response !== poisoned);
    for (const response of answered) expect(response.json()).toMatchObject({ decision: 'approval_required' });

    const { db } = t.runtime.database;
    const rows = await db
      .select({ id: traces.id, scope: traces.resourceScope, eventCount: traces.eventCount })
      .from(traces)
      .where(eq(traces.tenantId, tenant.tenantId));
    const traceIds = new Set(rows.map((row) => row.id));
    // The warm-up and every answered evaluation, each with its trace; none in the poisoned scope.
    expect(rows).toHaveLength(CONCURRENT);
    expect(rows.filter((row) => row.scope === POISONED)).toEqual([]);
    for (const response of answered) expect(traceIds.has(response.json().trace_id)).toBe(true);

    // Events, approvals and effects exist for those traces only, and completely.
    const events = await db.select({ traceId: traceEvents.traceId }).from(traceEvents).where(eq(traceEvents.tenantId, tenant.tenantId));
    expect(events.every((event) => traceIds.has(event.traceId))).toBe(true);
    expect(events).toHaveLength(rows.reduce((sum, row) => sum + row.eventCount, 0));
    const approvals = await db
      .select({ traceId: approvalRequests.traceId })
      .from(approvalRequests)
      .where(eq(approvalRequests.tenantId, tenant.tenantId));
    expect(new Set(approvals.map((approval) => approval.traceId))).toEqual(traceIds);
    const audited = await db
      .select({ traceId: sql<string>`${outbox.payload}->>'trace_id'` })
      .from(outbox)
      .where(sql`${outbox.tenantId} = ${tenant.tenantId} and ${outbox.kind} = 'audit_events'`);
    expect(new Set(audited.map((row) => row.traceId))).toEqual(traceIds);
  });

  it('commits many concurrent evaluations in fewer transactions than evaluations', async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'allow');
    expect((await evaluate(t.app, tenant, action(agent.id))).statusCode).toBe(200);

    const responses = await Promise.all(Array.from({ length: CONCURRENT }, () => evaluate(t.app, tenant, action(agent.id))));
    for (const response of responses) expect(response.json()).toMatchObject({ decision: 'allow' });

    const rows = await t.runtime.database.db
      .select({ xmin: sql<string>`${traces}.xmin::text` })
      .from(traces)
      .where(eq(traces.tenantId, tenant.tenantId));
    expect(rows).toHaveLength(CONCURRENT + 1);
    // At most a few writes are under way at once; everything decided meanwhile shares the next.
    expect(new Set(rows.map((row) => row.xmin)).size).toBeLessThan(CONCURRENT / 2);
  });
});
