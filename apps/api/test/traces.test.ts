import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { useTestApp, signupTenant } from './harness.js';
import { evaluate, evaluatedTrace, verification } from './scenarios.js';

const t = useTestApp();
const api = client(t);

/**
 * The documented formula, implemented independently of the service's code:
 * "sha256:" + hex(SHA-256(prev + "\n" + JCS(fields))). For the values an event holds here
 * (strings, integers, null, objects of those), RFC 8785 is JSON with keys sorted by code unit.
 */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

const HASHED = [
  'id',
  'event_type',
  'actor_type',
  'actor_name',
  'description',
  'status',
  'timestamp',
  'policy_version',
  'approval_request_id',
  'metadata',
];

function expectedHash(previous: string, traceId: string, event: Record<string, unknown>): string {
  const fields: Record<string, unknown> = { trace_id: traceId };
  for (const name of HASHED) fields[name] = event[name];
  return `sha256:${createHash('sha256')
    .update(`${previous}\n${canonical(fields)}`)
    .digest('hex')}`;
}

describe('GET /api/v1/traces/:id', () => {
  it('returns the flat trace with ordered events whose hashes follow the documented formula', async () => {
    const { tenant, agent, traceId } = await evaluatedTrace(t.app, 'deny');
    const response = await api.get(tenant.runtimeKey, `/api/v1/traces/${traceId}`);
    expect(response.statusCode).toBe(200);
    const trace = response.json();
    expect(trace).toEqual({
      id: traceId,
      agent_id: agent.id,
      agent_name: 'invoice-bot',
      authority_model: 'delegated',
      requested_operation: 'write',
      target_integration: 'github',
      resource_scope: 'repo/app',
      parent_trace_id: null,
      final_outcome: 'denied',
      started_at: expect.any(String),
      completed_at: expect.any(String),
      duration_ms: 0,
      events: expect.any(Array),
      approval_requests: [],
    });
    expect(trace.events).toHaveLength(5);
    let previous = '';
    for (const event of trace.events) {
      expect(Object.keys(event).sort()).toEqual([...HASHED, 'integrity_hash'].sort());
      expect(event.integrity_hash).toBe(expectedHash(previous, traceId, event));
      previous = event.integrity_hash;
    }
  });

  it("answers 404 for another tenant's trace and for an unknown id", async () => {
    const { traceId } = await evaluatedTrace(t.app, 'deny');
    const other = await signupTenant(t.app);
    for (const url of [
      `/api/v1/traces/${traceId}`,
      `/api/v1/traces/${traceId}/verify`,
      '/api/v1/traces/00000000-0000-4000-8000-000000000000',
    ]) {
      const response = await api.get(other.runtimeKey, url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error).toBe('not_found');
    }
  });
});

describe('GET /api/v1/traces', () => {
  it('lists traces newest first with counts, filtered by agent, outcome and time', async () => {
    const tenant = await signupTenant(t.app);
    const first = await createAgent(t.app, tenant.admin, { name: 'first' });
    const second = await createAgent(t.app, tenant.admin, { name: 'second' });
    await createPolicy(t.app, tenant.admin, first.id, { policy_effect: 'approval_required' });
    const a = (await evaluate(t.app, tenant, action(first.id))).json();
    const b = (await evaluate(t.app, tenant, action(second.id))).json();

    const all = (await api.get(tenant.runtimeKey, '/api/v1/traces')).json();
    expect(all.pagination).toEqual({ total: 2, limit: 20, offset: 0 });
    expect(all.data.map((trace: { id: string }) => trace.id)).toEqual([b.trace_id, a.trace_id]);
    expect(all.data[1]).toEqual({
      id: a.trace_id,
      agent_id: first.id,
      agent_name: 'first',
      authority_model: 'delegated',
      requested_operation: 'write',
      target_integration: 'github',
      resource_scope: 'repo/app',
      final_outcome: 'in_progress',
      started_at: expect.any(String),
      completed_at: null,
      duration_ms: null,
      event_count: 5,
      has_approval: true,
    });
    expect(all.data[0]).toMatchObject({ final_outcome: 'denied', has_approval: false, event_count: 5 });

    expect((await api.get(tenant.runtimeKey, `/api/v1/traces?agent_id=${second.id}`)).json().data.map((x: { id: string }) => x.id)).toEqual(
      [b.trace_id],
    );
    expect((await api.get(tenant.runtimeKey, '/api/v1/traces?outcome=in_progress')).json().data.map((x: { id: string }) => x.id)).toEqual([
      a.trace_id,
    ]);
    // from and to are inclusive bounds on started_at.
    const startedA = all.data[1].started_at as string;
    const justBefore = new Date(Date.parse(startedA) - 1).toISOString();
    const window = (await api.get(tenant.runtimeKey, `/api/v1/traces?from=${startedA}&to=${startedA}`)).json();
    expect(window.data.map((x: { id: string }) => x.id)).toContain(a.trace_id);
    expect((await api.get(tenant.runtimeKey, `/api/v1/traces?to=${justBefore}`)).json().pagination.total).toBe(0);
    expect((await api.get(tenant.runtimeKey, '/api/v1/traces?from=2999-01-01T00:00:00.000Z')).json().pagination.total).toBe(0);
    expect((await api.get(tenant.runtimeKey, '/api/v1/traces?limit=1&offset=1')).json().data.map((x: { id: string }) => x.id)).toEqual([
      a.trace_id,
    ]);
  });

  it.each(['outcome=finished', 'from=yesterday', 'limit=500', 'agent_id=x'])('rejects %s with 400', async (query) => {
    const tenant = await signupTenant(t.app);
    const response = await api.get(tenant.runtimeKey, `/api/v1/traces?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('validation_error');
  });
});

describe('GET /api/v1/traces/:traceId/verify', () => {
  const events = (traceId: string) =>
    t.runtime.database.rows<{ id: string; seq: number }>(sql`select id, seq from trace_events where trace_id = ${traceId} order by seq`);

  it('confirms an intact chain', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    expect(await verification(t.app, tenant, traceId)).toEqual({
      trace_id: traceId,
      valid: true,
      event_count: 5,
      verified_at: expect.any(String),
    });
  });

  it('detects a modified field at that event', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    const [, second] = await events(traceId);
    await t.runtime.database.db.execute(sql`update trace_events set description = 'nothing to see' where id = ${second!.id}`);
    expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: false, event_count: 5, first_invalid_event: second!.id });
  });

  it('detects a deleted middle event at the one after it', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    const [, second, third] = await events(traceId);
    await t.runtime.database.db.execute(sql`delete from trace_events where id = ${second!.id}`);
    expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: false, event_count: 4, first_invalid_event: third!.id });
  });

  it('detects reordering at the first moved event', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    const [, second, third] = await events(traceId);
    await t.runtime.database.db.execute(sql`update trace_events set seq = -1 where id = ${second!.id}`);
    await t.runtime.database.db.execute(sql`update trace_events set seq = 2 where id = ${third!.id}`);
    await t.runtime.database.db.execute(sql`update trace_events set seq = 3 where id = ${second!.id}`);
    expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: false, first_invalid_event: third!.id });
  });

  it('detects an inserted event', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    await t.runtime.database.db.execute(sql`update trace_events set seq = seq + 10 where trace_id = ${traceId} and seq >= 3`);
    const forged = '11111111-2222-4333-8444-555555555555';
    await t.runtime.database.db.execute(sql`
      insert into trace_events (id, tenant_id, trace_id, seq, event_type, actor_type, actor_name, description, status, timestamp, integrity_hash)
      select ${forged}, tenant_id, id, 3, 'operation_allowed', 'policy_engine', 'policy-engine', 'forged approval', 'allowed', started_at,
             'sha256:' || repeat('0', 64)
      from traces where id = ${traceId}`);
    expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: false, event_count: 6, first_invalid_event: forged });
  });
});
