import { describe, expect, it } from 'vitest';
import { type ErrorBody, expectErrorBody, invalidQuery } from './assertions.js';
import { client } from './client.js';
import { ALL_TIME, AUDIT_COLUMNS, type AuditEvent, asCells, BAD_RANGES, compareKeys, exportAudit, parseCsv } from './export-format.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { useTestApp, signupTenant, TestClock } from './harness.js';
import { decision, evaluation, succeeded, type Trace, traceOf } from './scenarios.js';

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

/** The audit rows of these traces' events, in export order: timestamp, trace id, chain position. */
function expectedAuditRows(traces: Trace[]): AuditEvent[] {
  const rows = traces.flatMap((trace) =>
    trace.events.map((event, seq) => ({
      seq,
      row: {
        event_id: event.id,
        trace_id: trace.id,
        agent_id: trace.agent_id,
        event_type: event.event_type,
        actor_type: event.actor_type,
        actor_name: event.actor_name,
        description: event.description,
        status: event.status,
        timestamp: event.timestamp,
        policy_version: event.policy_version,
        integrity_hash: event.integrity_hash,
      },
    })),
  );
  rows.sort((a, b) => compareKeys([a.row.timestamp, a.row.trace_id, a.seq], [b.row.timestamp, b.row.trace_id, b.seq]));
  return rows.map(({ row }) => row);
}

describe('GET /api/v1/audit/export', () => {
  it('returns every event as the trace shows it: a bare JSON array by default, the same rows as CSV', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const approval = await evaluation(t.app, tenant, action(agent.id));
    const denial = await evaluation(t.app, tenant, action(agent.id, { operation: 'delete' }));
    clock.advance(1_000);
    await decision(t.app, tenant, approval.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer', decision_note: 'fine' });
    await succeeded(t.app, tenant, approval.trace_id);
    const expected = expectedAuditRows([await traceOf(t.app, tenant, approval.trace_id), await traceOf(t.app, tenant, denial.trace_id)]);
    expect(expected).toHaveLength(15);

    const json = await exportAudit(api, tenant.admin, ALL_TIME);
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['content-disposition']).toBe('attachment; filename="audit-events-2000-01-01-to-2999-12-31.json"');
    expect(json.headers['x-total-count']).toBe('15');
    const events = json.json() as AuditEvent[];
    expect(events).toEqual(expected);
    for (const event of events) expect(Object.keys(event)).toEqual(AUDIT_COLUMNS);
    expect((await exportAudit(api, tenant.admin, `${ALL_TIME}&format=json`)).body).toBe(json.body);

    const csv = await exportAudit(api, tenant.admin, `${ALL_TIME}&format=csv`);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="audit-events-2000-01-01-to-2999-12-31.csv"');
    expect(csv.headers['x-total-count']).toBe('15');
    expect(csv.body.endsWith('\r\n')).toBe(true);
    expect(parseCsv(csv.body, AUDIT_COLUMNS)).toEqual(expected.map(asCells));
  });

  it("selects by each event's own timestamp, both bounds inclusive", async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluated = await evaluation(t.app, tenant, action(agent.id));
    clock.advance(1_000);
    await decision(t.app, tenant, evaluated.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' });
    const { events } = await traceOf(t.app, tenant, evaluated.trace_id);
    const decidedAt = events[5]!.timestamp;
    const eventIds = async (range: string) => {
      const response = await exportAudit(api, tenant.admin, range);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as AuditEvent[]).map((event) => event.event_id);
    };

    expect(await eventIds(`from=${decidedAt}&to=${decidedAt}`)).toEqual(events.slice(5).map((event) => event.id));
    expect(await eventIds(`from=2000-01-01&to=${new Date(Date.parse(decidedAt) - 1).toISOString()}`)).toEqual(
      events.slice(0, 5).map((event) => event.id),
    );
  });

  it.each<[string, string, ErrorBody]>([
    [
      'no query at all',
      '',
      invalidQuery([
        ['from', 'is required'],
        ['to', 'is required'],
      ]),
    ],
    ...BAD_RANGES,
    ['format=xml', 'from=2026-01-01&to=2026-01-31&format=xml', invalidQuery([['format', 'must be equal to one of the allowed values']])],
  ])('answers 400 validation_error for %s', async (_label, query, body) => {
    const tenant = await signupTenant(t.app);
    expectErrorBody(await api.get(tenant.admin, `/api/v1/audit/export${query ? `?${query}` : ''}`), 400, body);
  });
});
