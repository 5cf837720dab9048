import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '@agov/domain';
import { expectError } from './assertions.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import {
  createTestApp,
  keyWithScopes,
  request,
  sessionWithRole,
  signupTenant,
  type Credential,
  type Tenant,
  type TestApp,
} from './harness.js';

/** The spec's column lists, written out independently of the service's own constants. */
const TRACE_COLUMNS = [
  'trace_id',
  'agent_id',
  'agent_name',
  'operation',
  'target_integration',
  'resource_scope',
  'data_classification',
  'final_outcome',
  'started_at',
  'completed_at',
  'duration_ms',
  'approval_required',
  'approver_name',
  'approval_decision',
  'approval_decided_at',
  'policy_rule_id',
  'policy_version',
] as const;
const AUDIT_COLUMNS = [
  'event_id',
  'trace_id',
  'agent_id',
  'event_type',
  'actor_type',
  'actor_name',
  'description',
  'status',
  'timestamp',
  'policy_version',
  'integrity_hash',
] as const;
type TraceRow = Record<(typeof TRACE_COLUMNS)[number], string>;
type AuditEvent = Record<(typeof AUDIT_COLUMNS)[number], string | number | null>;

/** Covers every trace a test makes (a `to` in the future is held at "now"). */
const ALL_TIME = 'from=2000-01-01&to=2999-12-31';
const DENIED_EVENTS = ['trace_initiated', 'identity_resolved', 'policy_evaluated', 'operation_denied', 'trace_closed'];
const APPROVED_EVENTS = [
  'trace_initiated',
  'identity_resolved',
  'policy_evaluated',
  'sensitive_operation_detected',
  'approval_requested',
  'approval_granted',
  'operation_allowed',
  'trace_closed',
];

/** Real time that a test can move forward, or stop at one instant so that concurrent evaluations share a timestamp. */
class StoppableClock implements Clock {
  private offsetMs = 0;
  private stoppedAt: Date | null = null;
  now() {
    return new Date(this.stoppedAt?.getTime() ?? Date.now() + this.offsetMs);
  }
  advance(ms: number) {
    this.offsetMs += ms;
  }
  stop() {
    this.stoppedAt = this.now();
    return this.stoppedAt;
  }
  resume() {
    this.stoppedAt = null;
  }
}

const clock = new StoppableClock();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

type Evaluated = { decision: string; trace_id: string; approval_request_id: string | null; reason: string; policy_rule_id: string | null };
type TraceEvent = {
  id: string;
  event_type: string;
  actor_type: string;
  actor_name: string;
  description: string;
  status: string;
  timestamp: string;
  policy_version: number | null;
  integrity_hash: string;
};
type TraceDetail = Record<string, unknown> & {
  id: string;
  agent_id: string;
  started_at: string;
  events: TraceEvent[];
  approval_requests: { id: string; status: string; approver_name: string | null; decided_at: string | null }[];
};

const get = (credential: Credential, url: string, app: FastifyInstance = t.app) => request(app, credential, { method: 'GET', url });
const post = (credential: Credential, url: string, payload: Record<string, unknown>, app: FastifyInstance = t.app) =>
  request(app, credential, { method: 'POST', url, payload });
const exportTraces = (credential: Credential, query: string, app: FastifyInstance = t.app) =>
  get(credential, `/api/v1/traces/export?${query}`, app);
const exportAudit = (credential: Credential, query: string, app: FastifyInstance = t.app) =>
  get(credential, `/api/v1/audit/export?${query}`, app);

async function evaluate(tenant: Tenant, payload: Record<string, unknown>, app: FastifyInstance = t.app): Promise<Evaluated> {
  const response = await post(tenant.runtimeKey, '/api/v1/evaluate', payload, app);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function decide(
  tenant: Tenant,
  approvalId: string,
  verdict: 'approve' | 'deny',
  body: Record<string, unknown>,
  app: FastifyInstance = t.app,
) {
  const response = await post(tenant.admin, `/api/v1/approvals/${approvalId}/${verdict}`, body, app);
  expect(response.statusCode, response.body).toBe(200);
}

async function succeed(tenant: Tenant, traceId: string) {
  const response = await post(tenant.runtimeKey, `/api/v1/traces/${traceId}/outcome`, { status: 'success' });
  expect(response.statusCode, response.body).toBe(204);
}

async function detail(tenant: Tenant, traceId: string, app: FastifyInstance = t.app): Promise<TraceDetail> {
  const response = await get(tenant.runtimeKey, `/api/v1/traces/${traceId}`, app);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Runs task(0 … count-1) at most `width` at a time; results in index order. */
async function inBatches<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += width) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, i) => task(start + i)))));
  }
  return results;
}

/** A CSV body read by the real parser. Its header must be exactly `columns`; rows come keyed by column. */
function parseCsv<Column extends string>(body: string, columns: readonly Column[]): Record<Column, string>[] {
  const [header, ...records] = parse(body) as string[][];
  expect(header).toEqual(columns);
  for (const record of records) expect(record).toHaveLength(columns.length);
  return records.map((record) => Object.fromEntries(columns.map((column, i) => [column, record[i]])) as Record<Column, string>);
}

/** How a CSV cell shows a JSON value (CONTRACT): null is empty, everything else its text. */
const cellOf = (value: unknown) => (value === null || value === undefined ? '' : String(value));
const asCells = (event: AuditEvent) => Object.fromEntries(AUDIT_COLUMNS.map((column) => [column, cellOf(event[column])]));

/** Lexicographic order of sort keys; ISO times and lowercase UUIDs compare as text the way PostgreSQL orders them. */
function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (const [i, x] of a.entries()) if (x !== b[i]) return x < b[i]! ? -1 : 1;
  return 0;
}
const oldestFirst = (a: TraceRow, b: TraceRow) => compareKeys([a.started_at, a.trace_id], [b.started_at, b.trace_id]);

/** The bulk CSV row a trace should have, built from the trace as GET /traces/:id shows it. */
function expectedTraceRow(trace: TraceDetail, evaluated: Evaluated, dataClassification: string): TraceRow {
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

/** The audit rows of these traces' events, in export order: timestamp, trace id, chain position. */
function expectedAuditRows(traces: TraceDetail[]): AuditEvent[] {
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

/** Runs the offline verifier from source on an export, as apps/cli/test/verify-trace.test.ts does. */
function verifyOffline(file: unknown) {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'agov-export-'));
  try {
    const path = join(dir, 'trace.json');
    writeFileSync(path, JSON.stringify(file));
    return spawnSync(join(root, 'node_modules/.bin/tsx'), ['--conditions=source', join(root, 'apps/cli/src/verify-trace.ts'), path], {
      encoding: 'utf8',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An approval_required trace, approved by a reviewer with a note. */
async function approvedTrace() {
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
  const evaluated = await evaluate(tenant, action(agent.id));
  await decide(tenant, evaluated.approval_request_id!, 'approve', {
    approver_name: 'Rita Reviewer',
    decision_note: 'Checked with finance',
  });
  return { tenant, evaluated, traceId: evaluated.trace_id };
}

/** Bounds the date-time format admits but that name no time PostgreSQL can store. */
const UNREAL_BOUNDS = [
  ['a to on a leap second', 'from=2026-01-01&to=2026-12-31T23:59:60Z'],
  ['a from with an hour-only offset', 'from=2026-01-01T00:00:00%2B02&to=2026-01-31'],
  ['a from in year 0000', 'from=0000-01-01&to=2026-01-31'],
];
const BAD_RANGES = [
  ['no query at all', ''],
  ['a missing from', 'to=2026-01-31'],
  ['a missing to', 'from=2026-01-01'],
  ['a from that is not a date', 'from=yesterday&to=2026-01-31'],
  ['a to that does not exist', 'from=2026-01-01&to=2026-02-30'],
  ['from after to', 'from=2026-01-31T00:00:00.001Z&to=2026-01-31T00:00:00Z'],
  ...UNREAL_BOUNDS,
];

describe('GET /api/v1/traces/:traceId/export', () => {
  it('downloads the trace, its full chain and its approvals as one JSON file that verifies offline', async () => {
    const { tenant, evaluated, traceId } = await approvedTrace();
    const { events, approval_requests, ...trace } = await detail(tenant, traceId);
    const before = clock.now().getTime();
    const response = await get(tenant.runtimeKey, `/api/v1/traces/${traceId}/export`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="trace-${traceId}.json"`);

    const file = response.json();
    expect(Object.keys(file)).toEqual(['trace', 'events', 'approval_requests', 'exported_at']);
    expect(Object.keys(file.trace).sort()).toEqual(
      [
        'id',
        'agent_id',
        'agent_name',
        'authority_model',
        'requested_operation',
        'target_integration',
        'resource_scope',
        'parent_trace_id',
        'final_outcome',
        'started_at',
        'completed_at',
        'duration_ms',
      ].sort(),
    );
    expect(file.trace).toEqual(trace);
    expect(file.trace).toMatchObject({ id: traceId, final_outcome: 'completed_with_approval', parent_trace_id: null });
    expect(file.events).toEqual(events);
    expect(file.events.map((event: TraceEvent) => event.event_type)).toEqual(APPROVED_EVENTS);
    expect(file.approval_requests).toEqual([
      {
        id: evaluated.approval_request_id,
        status: 'approved',
        flag_reason: evaluated.reason,
        approver_name: 'Rita Reviewer',
        decision_note: 'Checked with finance',
        decided_at: approval_requests[0]!.decided_at,
      },
    ]);
    expect(Date.parse(file.exported_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(file.exported_at)).toBeLessThanOrEqual(clock.now().getTime());

    const intact = verifyOffline(file);
    expect(intact.status, intact.stderr).toBe(0);
    expect(intact.stdout).toBe(`valid: trace ${traceId}, 8 events, hash chain intact\n`);
    const tampered = verifyOffline({
      ...file,
      events: file.events.map((event: TraceEvent, i: number) => (i === 5 ? { ...event, description: 'Approved by nobody' } : event)),
    });
    expect(tampered.status, tampered.stderr).toBe(1);
    expect(tampered.stdout).toContain(`chain breaks at event ${events[5]!.id}`);
  });

  it('admits a traces:read key and reviewer or admin sessions; refuses viewers and other keys', async () => {
    const { tenant, traceId } = await approvedTrace();
    const url = `/api/v1/traces/${traceId}/export`;
    for (const credential of [
      tenant.runtimeKey,
      await keyWithScopes(t.app, tenant, ['traces:read']),
      tenant.admin,
      await sessionWithRole(t.app, tenant, 'reviewer'),
    ]) {
      expect((await get(credential, url)).statusCode).toBe(200);
    }
    expectError(await get(await sessionWithRole(t.app, tenant, 'viewer'), url), 403, 'forbidden');
    expectError(await get(await keyWithScopes(t.app, tenant, ['evaluate', 'approvals:read']), url), 403, 'forbidden');
    expectError(await get(null, url), 401, 'unauthorized');
  });

  it("answers 404 for another tenant's trace, an unknown id and a malformed id", async () => {
    const { traceId } = await approvedTrace();
    const other = await signupTenant(t.app);
    for (const id of [traceId, randomUUID(), 'not-a-uuid'])
      expectError(await get(other.admin, `/api/v1/traces/${id}/export`), 404, 'not_found');
  });
});

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
    const patched = await request(t.app, tenant.admin, { method: 'PATCH', url: `/api/v1/policies/${reads.id}`, payload: { priority: 20 } });
    expect(patched.statusCode, patched.body).toBe(200);

    const made: { evaluated: Evaluated; classification: string }[] = [];
    const trace = async (overrides: Record<string, unknown>, then?: (evaluated: Evaluated) => Promise<void>) => {
      const payload = action(agent.id, overrides);
      const evaluated = await evaluate(tenant, payload);
      await then?.(evaluated);
      made.push({ evaluated, classification: payload.data_classification as string });
      return evaluated.trace_id;
    };
    const approved = await trace({}, async (e) => {
      await decide(tenant, e.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' });
      await succeed(tenant, e.trace_id);
    });
    const refused = await trace({ resource_scope: 'repo/refused' }, (e) =>
      decide(tenant, e.approval_request_id!, 'deny', { approver_name: 'Dan Denier', decision_note: 'no' }),
    );
    const denied = await trace({ operation: 'delete' });
    const executed = await trace({ operation: 'read', data_classification: 'public' }, (e) => succeed(tenant, e.trace_id));
    const open = await trace({ operation: 'read', data_classification: 'public', resource_scope: 'repo/docs' });
    const pending = await trace({ resource_scope: 'repo/pending' });
    const unmatched = await trace({ operation: 'admin', data_classification: 'restricted' });
    const expired = await trace({ operation: 'deploy' }, async (e) => {
      clock.advance(61_000);
      expectError(
        await post(tenant.admin, `/api/v1/approvals/${e.approval_request_id}/approve`, { approver_name: 'Late Larry' }),
        409,
        'conflict',
      );
    });

    const response = await exportTraces(tenant.admin, `${ALL_TIME}&format=csv`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toBe('attachment; filename="traces-2000-01-01-to-2999-12-31.csv"');
    expect(response.headers['x-total-count']).toBe('8');
    // Every record ends with CRLF; no value here holds a line break of its own.
    expect(response.body.endsWith('\r\n')).toBe(true);
    expect(response.body.split('\r\n').filter((line) => /[\r\n]/.test(line))).toEqual([]);

    const rows = parseCsv(response.body, TRACE_COLUMNS);
    const expected = await Promise.all(
      made.map(async ({ evaluated, classification }) =>
        expectedTraceRow(await detail(tenant, evaluated.trace_id), evaluated, classification),
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
    const first = await detail(tenant, (await evaluate(tenant, action(agent.id))).trace_id);
    clock.advance(1_000);
    const second = await detail(tenant, (await evaluate(tenant, action(agent.id))).trace_id);
    const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const day = (iso: string) => iso.slice(0, 10);
    const ids = async (range: string) => {
      const response = await exportTraces(tenant.admin, `${range}&format=csv`);
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
    const response = await exportTraces(tenant.admin, `${range}&format=csv`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toBe('attachment; filename="traces-2026-01-05-to-2026-02-03.csv"');
    expect(response.headers['x-total-count']).toBe('0');
    expect(response.body).toBe(`${TRACE_COLUMNS.join(',')}\r\n`);
  });

  it.each([
    ...BAD_RANGES.map(([label, range]) => [label, range ? `${range}&format=csv` : '']),
    ['a missing format', 'from=2026-01-01&to=2026-01-31'],
    ['format=json', 'from=2026-01-01&to=2026-01-31&format=json'],
    ['format=xlsx', 'from=2026-01-01&to=2026-01-31&format=xlsx'],
    ['a malformed agent_id', 'from=2026-01-01&to=2026-01-31&format=csv&agent_id=agent-1'],
  ])('answers 400 validation_error for %s (never 404 from /traces/:traceId)', async (_label, query) => {
    const tenant = await signupTenant(t.app);
    expectError(await get(tenant.admin, `/api/v1/traces/export${query ? `?${query}` : ''}`), 400, 'validation_error');
  });
});

describe('GET /api/v1/audit/export', () => {
  it('returns every event as the trace shows it: a bare JSON array by default, the same rows as CSV', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const approval = await evaluate(tenant, action(agent.id));
    const denial = await evaluate(tenant, action(agent.id, { operation: 'delete' }));
    clock.advance(1_000);
    await decide(tenant, approval.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer', decision_note: 'fine' });
    await succeed(tenant, approval.trace_id);
    const expected = expectedAuditRows([await detail(tenant, approval.trace_id), await detail(tenant, denial.trace_id)]);
    expect(expected).toHaveLength(15);

    const json = await exportAudit(tenant.admin, ALL_TIME);
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers['content-disposition']).toMatch(/^attachment; filename="[^"/]+\.json"$/);
    expect(json.headers['x-total-count']).toBe('15');
    const events = json.json() as AuditEvent[];
    expect(events).toEqual(expected);
    for (const event of events) expect(Object.keys(event)).toEqual(AUDIT_COLUMNS);
    expect((await exportAudit(tenant.admin, `${ALL_TIME}&format=json`)).body).toBe(json.body);

    const csv = await exportAudit(tenant.admin, `${ALL_TIME}&format=csv`);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="[^"/]+\.csv"$/);
    expect(csv.headers['x-total-count']).toBe('15');
    expect(csv.body.endsWith('\r\n')).toBe(true);
    expect(parseCsv(csv.body, AUDIT_COLUMNS)).toEqual(expected.map(asCells));
  });

  it("selects by each event's own timestamp, both bounds inclusive", async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluated = await evaluate(tenant, action(agent.id));
    clock.advance(1_000);
    await decide(tenant, evaluated.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' });
    const { events } = await detail(tenant, evaluated.trace_id);
    const decidedAt = events[5]!.timestamp;
    const eventIds = async (range: string) => {
      const response = await exportAudit(tenant.admin, range);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as AuditEvent[]).map((event) => event.event_id);
    };

    expect(await eventIds(`from=${decidedAt}&to=${decidedAt}`)).toEqual(events.slice(5).map((event) => event.id));
    expect(await eventIds(`from=2000-01-01&to=${new Date(Date.parse(decidedAt) - 1).toISOString()}`)).toEqual(
      events.slice(0, 5).map((event) => event.id),
    );
  });

  it.each([...BAD_RANGES, ['format=xml', 'from=2026-01-01&to=2026-01-31&format=xml']])(
    'answers 400 validation_error for %s',
    async (_label, query) => {
      const tenant = await signupTenant(t.app);
      expectError(await get(tenant.admin, `/api/v1/audit/export${query ? `?${query}` : ''}`), 400, 'validation_error');
    },
  );
});

describe('both bulk exports', () => {
  it('keep tenants apart, and the trace export filters by agent', async () => {
    const tenant = await signupTenant(t.app);
    const other = await signupTenant(t.app, 'Other');
    const mine = await createAgent(t.app, tenant.admin, { name: 'mine' });
    const alsoMine = await createAgent(t.app, tenant.admin, { name: 'also-mine' });
    const foreign = await createAgent(t.app, other.admin, { name: 'foreign' });
    const a = (await evaluate(tenant, action(mine.id))).trace_id;
    const b = (await evaluate(tenant, action(alsoMine.id))).trace_id;
    const c = (await evaluate(other, action(foreign.id))).trace_id;

    const traceIds = async (who: Tenant, filter = '') => {
      const response = await exportTraces(who.admin, `${ALL_TIME}&format=csv${filter}`);
      expect(response.statusCode, response.body).toBe(200);
      return parseCsv(response.body, TRACE_COLUMNS)
        .map((row) => row.trace_id)
        .sort();
    };
    expect(await traceIds(tenant)).toEqual([a, b].sort());
    expect(await traceIds(other)).toEqual([c]);
    expect(await traceIds(tenant, `&agent_id=${mine.id}`)).toEqual([a]);
    expect(await traceIds(tenant, `&agent_id=${foreign.id}`)).toEqual([]);

    const auditTraceIds = async (who: Tenant, format: 'json' | 'csv') => {
      const response = await exportAudit(who.admin, `${ALL_TIME}&format=${format}`);
      expect(response.statusCode, response.body).toBe(200);
      const rows: { trace_id: unknown }[] = format === 'json' ? response.json() : parseCsv(response.body, AUDIT_COLUMNS);
      expect(response.headers['x-total-count']).toBe(String(rows.length));
      return [...new Set(rows.map((row) => row.trace_id))].sort();
    };
    for (const format of ['json', 'csv'] as const) {
      expect(await auditTraceIds(tenant, format)).toEqual([a, b].sort());
      expect(await auditTraceIds(other, format)).toEqual([c]);
    }
  });

  it('neutralise spreadsheet formulas and quote commas, quotes and line breaks', async () => {
    const tenant = await signupTenant(t.app);
    const name = '=HYPERLINK("http://evil.test","click")';
    const agent = await createAgent(t.app, tenant.admin, { name });
    const risky = { operation: '+transfer, "all"\nnow', target_integration: '-2+3', resource_scope: '@acct, "main"\r\nrow 2' };
    const first = (await evaluate(tenant, action(agent.id, risky))).trace_id;
    const second = (await evaluate(tenant, action(agent.id, { operation: '\tcmd', resource_scope: '\rscope' }))).trace_id;

    const traces = await exportTraces(tenant.admin, `${ALL_TIME}&format=csv`);
    expect(traces.statusCode, traces.body).toBe(200);
    expect(traces.body).toContain(`,"'=HYPERLINK(""http://evil.test"",""click"")",`);
    expect(traces.body).toContain(`,"'+transfer, ""all""\nnow",`);
    expect(traces.body).toContain(`,"'@acct, ""main""\r\nrow 2",`);
    const rows = parseCsv(traces.body, TRACE_COLUMNS);
    expect(rows).toHaveLength(2);
    const row = (id: string) => rows.find((r) => r.trace_id === id)!;
    expect(row(first)).toMatchObject({
      agent_name: `'${name}`,
      operation: `'${risky.operation}`,
      target_integration: `'${risky.target_integration}`,
      resource_scope: `'${risky.resource_scope}`,
    });
    expect(row(second)).toMatchObject({ operation: "'\tcmd", resource_scope: "'\rscope", target_integration: 'github' });

    // The JSON audit export carries the values as they are; its CSV form neutralises them too.
    const events = (await exportAudit(tenant.admin, ALL_TIME)).json() as AuditEvent[];
    const initiated = events.find((event) => event.trace_id === first && event.event_type === 'trace_initiated')!;
    expect(initiated.actor_name).toBe(name);
    expect(initiated.description).toContain(risky.operation);
    const csv = parseCsv((await exportAudit(tenant.admin, `${ALL_TIME}&format=csv`)).body, AUDIT_COLUMNS);
    expect(csv).toHaveLength(events.length);
    expect(csv.find((event) => event.event_id === initiated.event_id)).toMatchObject({
      actor_name: `'${name}`,
      description: initiated.description,
    });
  });

  describe.each([
    ['/api/v1/traces/export', 'format=csv'],
    ['/api/v1/audit/export', 'format=json'],
  ])('%s', (path, format) => {
    it('admits an admin key and reviewer or admin sessions; refuses the agent runtime key, viewers and no credential', async () => {
      const tenant = await signupTenant(t.app);
      const url = `${path}?${ALL_TIME}&${format}`;
      for (const credential of [
        await keyWithScopes(t.app, tenant, ['admin']),
        tenant.admin,
        await sessionWithRole(t.app, tenant, 'reviewer'),
      ]) {
        const response = await get(credential, url);
        expect(response.statusCode, response.body).toBe(200);
      }
      expectError(await get(tenant.runtimeKey, url), 403, 'forbidden');
      expectError(await get(await sessionWithRole(t.app, tenant, 'viewer'), url), 403, 'forbidden');
      expectError(await get(null, url), 401, 'unauthorized');
    });
  });
});

describe('exports over EXPORT_MAX_ROWS', () => {
  const limitedClock = new StoppableClock();
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { EXPORT_MAX_ROWS: '3' }, clock: limitedClock });
  });
  afterAll(() => limited.close());

  it('exports exactly the limit of traces, and refuses one more with 413 export_too_large instead of a file', async () => {
    const tenant = await signupTenant(limited.app);
    const agent = await createAgent(limited.app, tenant.admin);
    const other = await createAgent(limited.app, tenant.admin, { name: 'other-bot' });
    for (let i = 0; i < 3; i += 1) await evaluate(tenant, action(agent.id), limited.app);
    const query = `${ALL_TIME}&format=csv`;

    const atLimit = await exportTraces(tenant.admin, query, limited.app);
    expect(atLimit.statusCode, atLimit.body).toBe(200);
    expect(atLimit.headers['x-total-count']).toBe('3');
    expect(parseCsv(atLimit.body, TRACE_COLUMNS)).toHaveLength(3);

    await evaluate(tenant, action(other.id), limited.app);
    const over = await exportTraces(tenant.admin, query, limited.app);
    expectError(over, 413, 'export_too_large');
    expect(over.headers['content-disposition']).toBeUndefined();
    // Narrowing the export brings it back within the limit.
    expect((await exportTraces(tenant.admin, `${query}&agent_id=${agent.id}`, limited.app)).headers['x-total-count']).toBe('3');
  });

  it('exports exactly the limit of events, and refuses more with 413 in either format', async () => {
    const tenant = await signupTenant(limited.app);
    const agent = await createAgent(limited.app, tenant.admin);
    await createPolicy(limited.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluated = await evaluate(tenant, action(agent.id), limited.app);
    limitedClock.advance(1_000);
    await decide(tenant, evaluated.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' }, limited.app);
    // The evaluation wrote 5 events; the decision, a second later, 3 more.
    const decidedAt = (await detail(tenant, evaluated.trace_id, limited.app)).events[5]!.timestamp;

    for (const format of ['json', 'csv']) {
      const atLimit = await exportAudit(tenant.admin, `from=${decidedAt}&to=${decidedAt}&format=${format}`, limited.app);
      expect(atLimit.statusCode, atLimit.body).toBe(200);
      expect(atLimit.headers['x-total-count']).toBe('3');
      expectError(await exportAudit(tenant.admin, `${ALL_TIME}&format=${format}`, limited.app), 413, 'export_too_large');
    }
  });
});

describe('exports larger than one page (1000 rows)', () => {
  let tenant: Tenant;
  let instant: string;
  let denied: string[];
  let approved: string[];

  beforeAll(async () => {
    tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { operation: 'review', policy_effect: 'approval_required' });
    // Everything at one instant: each page boundary falls inside a run of equal times, where
    // only the trace id (and for events the chain position) orders rows. The four 8-event
    // traces among the 5-event ones make later event pages end in the middle of a trace.
    instant = clock.stop().toISOString();
    try {
      denied = (await inBatches(1_001, 20, () => evaluate(tenant, action(agent.id)))).map((e) => e.trace_id);
      const reviews = await inBatches(4, 4, () => evaluate(tenant, action(agent.id, { operation: 'review' })));
      await inBatches(4, 4, (i) => decide(tenant, reviews[i]!.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' }));
      approved = reviews.map((e) => e.trace_id);
    } finally {
      clock.resume();
    }
  });

  it('streams every trace once, ordered by started_at then id across the page boundary', async () => {
    const response = await exportTraces(tenant.admin, `${ALL_TIME}&format=csv`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-total-count']).toBe('1005');
    const rows = parseCsv(response.body, TRACE_COLUMNS);
    expect(rows).toHaveLength(1005);
    expect(new Set(rows.map((row) => row.trace_id))).toEqual(new Set([...denied, ...approved]));
    expect(rows.every((row) => row.started_at === instant)).toBe(true);
    expect(rows).toEqual([...rows].sort(oldestFirst));
  });

  it('streams every event once, in time, trace and chain order, the same in JSON and CSV', async () => {
    const total = 1_001 * DENIED_EVENTS.length + 4 * APPROVED_EVENTS.length;
    const response = await exportAudit(tenant.admin, ALL_TIME);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-total-count']).toBe(String(total));
    const events = response.json() as AuditEvent[];
    expect(events).toHaveLength(total);
    expect(new Set(events.map((event) => event.event_id)).size).toBe(total);

    // Ordered by (timestamp, trace_id), each trace's events form one run, in chain order.
    const runs: { traceId: string; types: unknown[] }[] = [];
    for (const [i, event] of events.entries()) {
      const previous = events[i - 1];
      if (previous)
        expect(
          compareKeys([String(previous.timestamp), String(previous.trace_id)], [String(event.timestamp), String(event.trace_id)]),
          `row ${i}`,
        ).toBeLessThanOrEqual(0);
      if (runs.at(-1)?.traceId === event.trace_id) runs.at(-1)!.types.push(event.event_type);
      else runs.push({ traceId: String(event.trace_id), types: [event.event_type] });
    }
    expect(runs).toHaveLength(1005);
    for (const run of runs) expect(run.types).toEqual(approved.includes(run.traceId) ? APPROVED_EVENTS : DENIED_EVENTS);

    const csv = await exportAudit(tenant.admin, `${ALL_TIME}&format=csv`);
    expect(csv.headers['x-total-count']).toBe(String(total));
    expect(parseCsv(csv.body, AUDIT_COLUMNS)).toEqual(events.map(asCells));
  });
});
