import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { describe, expect, it, onTestFinished } from 'vitest';
import { outbox } from '@agov/db';
import { expectErrorBody } from './assertions.js';
import { client } from './client.js';
import { type Tenant, useTestApp } from './harness.js';
import { type Approval, approvalRequired, requestApproval, subscribeToAuditEvents, traceOf, type Verdict } from './scenarios.js';

/*
 * A decision and its effects (the approval.* webhook, the audit fan-out) commit together or not
 * at all (CONTRACT: effects are recorded in the same transaction as the change that causes
 * them). Triggers of this file's own database make one side fail: the decision, at commit,
 * after its effects were written; or the writing of the effects. Either way the answer is an
 * error, and nothing of the decision or its effects is left. Nothing dispatches here, so every
 * effect recorded stays in the outbox to be seen.
 */
const t = useTestApp({ ownDatabase: true });
const api = client(t);

const INTERNAL_ERROR = { error: 'internal_error', message: 'Internal server error' };
const VERDICTS: readonly Verdict[] = ['approve', 'deny'];

/** Runs `ddl` now and `undo` when the test ends, so no trigger outlives its test. */
async function installed(ddl: string, undo: string) {
  await t.runtime.database.db.execute(sql.raw(ddl));
  onTestFinished(async () => {
    await t.runtime.database.db.execute(sql.raw(undo));
  });
}

/** A pending request of a tenant that subscribes to audit events, so a decision records an audit fan-out too. */
async function pendingRequest() {
  const { tenant, agent } = await approvalRequired(t.app);
  await subscribeToAuditEvents(t.app, tenant);
  return { tenant, pending: await requestApproval(t.app, tenant, agent.id) };
}

/** Everything a decision would change, as the API and the outbox show it. */
async function stateOf(tenant: Tenant, pending: Approval) {
  const listed = (await api.get(tenant.admin, `/api/v1/approvals?agent_id=${pending.agent_id}`)).json().data as Approval[];
  const outboxRows = await t.runtime.database.db
    .select({ id: outbox.id, kind: outbox.kind, payload: outbox.payload })
    .from(outbox)
    .where(eq(outbox.tenantId, tenant.tenantId))
    .orderBy(asc(outbox.id));
  return {
    approval: listed.find((item) => item.id === pending.id),
    status: (await api.get(tenant.admin, `/api/v1/approvals/${pending.id}/status`)).json(),
    trace: await traceOf(t.app, tenant, pending.trace_id),
    outbox: outboxRows,
  };
}

/** The effects a decision of `pending` records: its approval.* webhook and the audit fan-out of its trace. */
const decisionEffects = (rows: Awaited<ReturnType<typeof stateOf>>['outbox'], pending: Approval) =>
  rows.filter(
    (row) =>
      (row.kind === 'webhook' && (row.payload.data as { approval?: { id?: string } }).approval?.id === pending.id) ||
      (row.kind === 'audit_events' && row.payload.trace_id === pending.trace_id && Number(row.payload.from_seq) >= 5),
  );

describe('a decision whose commit fails after its effects were written', () => {
  it.each(VERDICTS)('%s: answers 500 and leaves neither the decision nor any of its effects', async (verdict) => {
    const { tenant, pending } = await pendingRequest();
    // Checked at commit (deferred), so the decision's UPDATE and its effects have all been
    // written when it raises.
    const name = `refuse_${randomUUID().replace(/-/g, '')}`;
    await installed(
      `create function ${name}() returns trigger language plpgsql as $$
         begin raise exception 'the decision of % may not commit', new.id; end $$;
       create constraint trigger ${name} after update on approval_requests
         deferrable initially deferred for each row
         when (new.id = '${pending.id}' and new.status <> 'pending') execute function ${name}();`,
      `drop trigger ${name} on approval_requests; drop function ${name}();`,
    );
    const before = await stateOf(tenant, pending);
    expect(decisionEffects(before.outbox, pending)).toEqual([]);

    const response = await api.post(tenant.admin, `/api/v1/approvals/${pending.id}/${verdict}`, { approver_name: 'Rita Reviewer' });

    expectErrorBody(response, 500, INTERNAL_ERROR);
    expect(await stateOf(tenant, pending)).toEqual(before);
  });

  it('the same decision commits with its effects once the trigger is gone (control)', async () => {
    const { tenant, pending } = await pendingRequest();
    const before = await stateOf(tenant, pending);
    const response = await api.post(tenant.admin, `/api/v1/approvals/${pending.id}/approve`, { approver_name: 'Rita Reviewer' });
    expect(response.statusCode, response.body).toBe(200);
    const after = await stateOf(tenant, pending);
    expect(after.status).toMatchObject({ status: 'approved', approver_name: 'Rita Reviewer' });
    const recorded = decisionEffects(after.outbox, pending).map((row) => `${row.kind} ${row.payload.event ?? ''}`.trim());
    expect(recorded.sort()).toEqual(['audit_events', 'webhook approval.approved']);
    expect(after.outbox).toHaveLength(before.outbox.length + 2);
  });
});

describe('a decision whose effects cannot be written', () => {
  it.each(VERDICTS)('%s: answers 500 and the request stays pending, its trace untouched', async (verdict) => {
    const { tenant, pending } = await pendingRequest();
    const event = verdict === 'approve' ? 'approval.approved' : 'approval.denied';
    const name = `refuse_${randomUUID().replace(/-/g, '')}`;
    await installed(
      `create function ${name}() returns trigger language plpgsql as $$
         begin raise exception 'the % webhook may not be recorded', new.payload->>'event'; end $$;
       create trigger ${name} before insert on outbox for each row
         when (new.tenant_id = '${tenant.tenantId}' and new.kind = 'webhook' and new.payload->>'event' = '${event}')
         execute function ${name}();`,
      `drop trigger ${name} on outbox; drop function ${name}();`,
    );
    const before = await stateOf(tenant, pending);
    expect(before.status).toMatchObject({ status: 'pending', decided_at: null, approver_name: null, decision_note: null });

    const response = await api.post(tenant.admin, `/api/v1/approvals/${pending.id}/${verdict}`, {
      approver_name: 'Rita Reviewer',
      decision_note: 'never seen',
    });

    expectErrorBody(response, 500, INTERNAL_ERROR);
    expect(await stateOf(tenant, pending)).toEqual(before);
  });
});
