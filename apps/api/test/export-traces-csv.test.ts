import { describe, expect, it } from 'vitest';
import { type ErrorBody, expectErrorBody, invalidQuery } from './assertions.js';
import { client } from './client.js';
import { ALL_TIME, BAD_RANGES, cellOf, exportTraces, oldestFirst, parseCsv, TRACE_COLUMNS, type TraceRow } from './export-format.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { useTestApp, signupTenant, TestClock } from './harness.js';
import { decide, decision, type Evaluation, evaluation, succeeded, type Trace, traceOf } from './scenarios.js';

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

/** The bulk CSV row a trace should have, built from the trace as GET /traces/:id shows it. */
function expectedTraceRow(trace: Trace, evaluated: Evaluation, dataClassification: string): TraceRow {
  const approval = trace.approval_requests[0];
  const decided = trace.events.find((event) => event.event_type === 'policy_evaluated')!;
  return {
    trace_id: trace.id,
    agent_id: trace.agent_id,
    agent_name: cellOf(trace.agent_name),
    operation: cellOf(trace.requested_operation),
    target_integration: cellOf(trace.target_integration),
    resource_scope: cellOf(trace.resource_scope),
    data_classification: dataClassification,
    final_outcome: cellOf(trace.final_outcome),
    started_at: trace.started_at,
    completed_at: cellOf(trace.completed_at),
    duration_ms: cellOf(trace.duration_ms),
    approval_required: String(evaluated.decision === 'approval_required'),
    approver_name: cellOf(approval?.approver_name),
    approval_decision: cellOf(approval?.status),
    approval_decided_at: cellOf(approval?.decided_at),
    policy_rule_id: cellOf(evaluated.policy_rule_id),
    policy_version: cellOf(decided.policy_version),
  };
}

describe('GET /api/v1/traces/export', () => {
  it('writes one row per trace, oldest first, every column as the API shows the trace', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_name: 'Review writes', policy_effect: 'approval_required' });
    await createPolicy(t.app, tenant.admin, agent.id, { policy_name: 'Block deletes', operation: 'delete', policy_effect: 'deny' });
    await createPolicy(t.app, tenant.admin, agent.id, {
      policy_name: 'Review deploys fast',
      operation: 'deploy',
      policy_effect: 'approval_required',
      max_session_ttl: 60,
    });
    const reads = await createPolicy(t.app, tenant.admin, agent.id, {
      policy_name: 'Allow public reads',
      operation: 'read',
      data_classification: 'public',
    });
    // A second version of the read rule, so that policy_version is not 1 everywhere.
    const patched = await api.patch(tenant.admin, `/api/v1/policies/${reads.id}`, { priority: 20 });
    expect(patched.statusCode, patched.body).toBe(200);

    const made: { evaluated: Evaluation; classification: string }[] = [];
    const trace = async (overrides: Record<string, unknown>, then?: (evaluated: Evaluation) => Promise<unknown>) => {
      const payload = action(agent.id, overrides);
      const evaluated = await evaluation(t.app, tenant, payload);
      await then?.(evaluated);
      made.push({ evaluated, classification: payload.data_classification as string });
      return evaluated.trace_id;
    };
    const approved = await trace({}, async (e) => {
      await decision(t.app, tenant, e.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' });
      await succeeded(t.app, tenant, e.trace_id);
    });
    const refused = await trace({ resource_scope: 'repo/refused' }, (e) =>
      decision(t.app, tenant, e.approval_request_id!, 'deny', { approver_name: 'Dan Denier', decision_note: 'no' }),
    );
    const denied = await trace({ operation: 'delete' });
    const executed = await trace({ operation: 'read', data_classification: 'public' }, (e) => succeeded(t.app, tenant, e.trace_id));
    const open = await trace({ operation: 'read', data_classification: 'public', resource_scope: 'repo/docs' });
    const pending = await trace({ resource_scope: 'repo/pending' });
    const unmatched = await trace({ operation: 'admin', data_classification: 'restricted' });
    const expired = await trace({ operation: 'deploy' }, async (e) => {
      const { expires_at } = (await api.get(tenant.admin, `/api/v1/approvals/${e.approval_request_id}`)).json().data;
      clock.advance(61_000);
      const late = await decide(t.app, tenant.admin, e.approval_request_id!, 'approve', { approver_name: 'Late Larry' });
      expectErrorBody(late, 409, {
        error: 'conflict',
        message: 'approval request has expired',
        details: { status: 'expired', expires_at },
        trace_id: e.trace_id,
      });
    });

    const response = await exportTraces(api, tenant.admin, `${ALL_TIME}&format=csv`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="traces-2000-01-01-to-2999-12-31.csv"');
    expect(response.headers['x-total-count']).toBe('8');
    // Every record ends with CRLF; no value here holds a line break of its own.
    expect(response.body.endsWith('\r\n')).toBe(true);
    expect(response.body.split('\r\n').filter((line) => /[\r\n]/.test(line))).toEqual([]);

    const rows = parseCsv(response.body, TRACE_COLUMNS);
    const expected = await Promise.all(
      made.map(async ({ evaluated, classification }) =>
        expectedTraceRow(await traceOf(t.app, tenant, evaluated.trace_id), evaluated, classification),
      ),
    );
    expect(rows).toEqual(expected.sort(oldestFirst));

    const row = (id: string) => rows.find((r) => r.trace_id === id)!;
    expect(row(approved)).toMatchObject({
      final_outcome: 'completed_with_approval',
      approval_required: 'true',
      approver_name: 'Rita Reviewer',
      approval_decision: 'approved',
      policy_version: '1',
    });
    expect(row(approved).approval_decided_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(row(refused)).toMatchObject({
      final_outcome: 'denied',
      approval_required: 'true',
      approver_name: 'Dan Denier',
      approval_decision: 'denied',
    });
    expect(row(denied)).toMatchObject({
      final_outcome: 'denied',
      approval_required: 'false',
      approver_name: '',
      approval_decision: '',
      approval_decided_at: '',
      duration_ms: '0',
    });
    expect(row(denied).completed_at).toBe(row(denied).started_at);
    expect(row(executed)).toMatchObject({
      final_outcome: 'executed',
      approval_required: 'false',
      data_classification: 'public',
      policy_rule_id: reads.id,
      policy_version: '2',
    });
    expect(row(open)).toMatchObject({ final_outcome: 'in_progress', completed_at: '', duration_ms: '' });
    expect(row(pending)).toMatchObject({
      final_outcome: 'in_progress',
      approval_required: 'true',
      approval_decision: 'pending',
      approver_name: '',
      approval_decided_at: '',
    });
    expect(row(unmatched)).toMatchObject({
      final_outcome: 'denied',
      data_classification: 'restricted',
      policy_rule_id: '',
      policy_version: '',
    });
    expect(row(expired)).toMatchObject({
      final_outcome: 'expired',
      approval_required: 'true',
      approval_decision: 'expired',
      approver_name: '',
      approval_decided_at: '',
    });
  });

  it('selects by started_at with both bounds inclusive, a date `to` covering its whole day', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    const first = await traceOf(t.app, tenant, (await evaluation(t.app, tenant, action(agent.id))).trace_id);
    clock.advance(1_000);
    const second = await traceOf(t.app, tenant, (await evaluation(t.app, tenant, action(agent.id))).trace_id);
    const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const day = (iso: string) => iso.slice(0, 10);
    const ids = async (range: string) => {
      const response = await exportTraces(api, tenant.admin, `${range}&format=csv`);
      expect(response.statusCode, response.body).toBe(200);
      const rows = parseCsv(response.body, TRACE_COLUMNS);
      expect(response.headers['x-total-count']).toBe(String(rows.length));
      return rows.map((row) => row.trace_id);
    };

    expect(await ids(`from=${first.started_at}&to=${first.started_at}`)).toEqual([first.id]);
    expect(await ids(`from=${shift(first.started_at, 1)}&to=${second.started_at}`)).toEqual([second.id]);
    expect(await ids(`from=${first.started_at}&to=${shift(second.started_at, -1)}`)).toEqual([first.id]);
    expect(await ids(`from=2000-01-01&to=${shift(first.started_at, -1)}`)).toEqual([]);
    expect(await ids(`from=2000-01-01&to=${day(second.started_at)}`)).toEqual([first.id, second.id]);
    expect(await ids(`from=${day(first.started_at)}&to=${day(second.started_at)}`)).toEqual([first.id, second.id]);
  });

  it.each([
    ['dates', 'from=2026-01-05&to=2026-02-03'],
    ['date-times', 'from=2026-01-05T10:00:00.000Z&to=2026-02-03T08:30:00Z'],
  ])('names the file after the range given as %s; an empty range is the header alone', async (_label, range) => {
    const tenant = await signupTenant(t.app);
    const response = await exportTraces(api, tenant.admin, `${range}&format=csv`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toBe('attachment; filename="traces-2026-01-05-to-2026-02-03.csv"');
    expect(response.headers['x-total-count']).toBe('0');
    expect(response.body).toBe(`${TRACE_COLUMNS.join(',')}\r\n`);
  });

  const unknownFormat = invalidQuery([['format', 'must be equal to one of the allowed values']]);
  it.each<[string, string, ErrorBody]>([
    [
      'no query at all',
      '',
      invalidQuery([
        ['from', 'is required'],
        ['to', 'is required'],
        ['format', 'is required'],
      ]),
    ],
    ...BAD_RANGES.map(([label, range, body]): [string, string, ErrorBody] => [label, `${range}&format=csv`, body]),
    ['a missing format', 'from=2026-01-01&to=2026-01-31', invalidQuery([['format', 'is required']])],
    ['format=json', 'from=2026-01-01&to=2026-01-31&format=json', unknownFormat],
    ['format=xlsx', 'from=2026-01-01&to=2026-01-31&format=xlsx', unknownFormat],
    [
      'a malformed agent_id',
      'from=2026-01-01&to=2026-01-31&format=csv&agent_id=agent-1',
      invalidQuery([['agent_id', 'must match format "uuid"']]),
    ],
  ])('answers 400 validation_error for %s (never 404 from /traces/:traceId)', async (_label, query, body) => {
    const tenant = await signupTenant(t.app);
    expectErrorBody(await api.get(tenant.admin, `/api/v1/traces/export${query ? `?${query}` : ''}`), 400, body);
  });
});
