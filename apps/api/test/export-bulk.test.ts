import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, FORBIDDEN, UNAUTHENTICATED } from './assertions.js';
import { client } from './client.js';
import {
  ALL_TIME,
  APPROVED_EVENTS,
  AUDIT_COLUMNS,
  type AuditEvent,
  asCells,
  compareKeys,
  DENIED_EVENTS,
  exportAudit,
  exportTraces,
  oldestFirst,
  parseCsv,
  TRACE_COLUMNS,
} from './export-format.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { useTestApp, keyWithScopes, sessionWithRole, signupTenant, TestClock, type Tenant } from './harness.js';
import { decision, evaluation, traceOf } from './scenarios.js';

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

/** Runs task(0 … count-1) at most `width` at a time; results in index order. */
async function inBatches<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += width) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, i) => task(start + i)))));
  }
  return results;
}

describe('both bulk exports', () => {
  it('keep tenants apart, and the trace export filters by agent', async () => {
    const tenant = await signupTenant(t.app);
    const other = await signupTenant(t.app, 'Other');
    const mine = await createAgent(t.app, tenant.admin, { name: 'mine' });
    const alsoMine = await createAgent(t.app, tenant.admin, { name: 'also-mine' });
    const foreign = await createAgent(t.app, other.admin, { name: 'foreign' });
    const a = (await evaluation(t.app, tenant, action(mine.id))).trace_id;
    const b = (await evaluation(t.app, tenant, action(alsoMine.id))).trace_id;
    const c = (await evaluation(t.app, other, action(foreign.id))).trace_id;

    const traceIds = async (who: Tenant, filter = '') => {
      const response = await exportTraces(api, who.admin, `${ALL_TIME}&format=csv${filter}`);
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
      const response = await exportAudit(api, who.admin, `${ALL_TIME}&format=${format}`);
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
    const first = (await evaluation(t.app, tenant, action(agent.id, risky))).trace_id;
    const second = (await evaluation(t.app, tenant, action(agent.id, { operation: '\tcmd', resource_scope: '\rscope' }))).trace_id;

    const traces = await exportTraces(api, tenant.admin, `${ALL_TIME}&format=csv`);
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
    const events = (await exportAudit(api, tenant.admin, ALL_TIME)).json() as AuditEvent[];
    const initiated = events.find((event) => event.trace_id === first && event.event_type === 'trace_initiated')!;
    expect(initiated.actor_name).toBe(name);
    expect(initiated.description).toContain(risky.operation);
    const csv = parseCsv((await exportAudit(api, tenant.admin, `${ALL_TIME}&format=csv`)).body, AUDIT_COLUMNS);
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
        const response = await api.get(credential, url);
        expect(response.statusCode, response.body).toBe(200);
      }
      expectErrorBody(await api.get(tenant.runtimeKey, url), 403, FORBIDDEN);
      expectErrorBody(await api.get(await sessionWithRole(t.app, tenant, 'viewer'), url), 403, FORBIDDEN);
      expectErrorBody(await api.get(null, url), 401, UNAUTHENTICATED);
    });
  });
});

describe('exports over EXPORT_MAX_ROWS', () => {
  const limitedClock = new TestClock();
  const limited = useTestApp({ env: { EXPORT_MAX_ROWS: '3' }, clock: limitedClock });
  const limitedApi = client(limited);

  it('exports exactly the limit of traces, and refuses one more with 413 export_too_large instead of a file', async () => {
    const tenant = await signupTenant(limited.app);
    const agent = await createAgent(limited.app, tenant.admin);
    const other = await createAgent(limited.app, tenant.admin, { name: 'other-bot' });
    for (let i = 0; i < 3; i += 1) await evaluation(limited.app, tenant, action(agent.id));
    const query = `${ALL_TIME}&format=csv`;

    const atLimit = await exportTraces(limitedApi, tenant.admin, query);
    expect(atLimit.statusCode, atLimit.body).toBe(200);
    expect(atLimit.headers['x-total-count']).toBe('3');
    expect(parseCsv(atLimit.body, TRACE_COLUMNS)).toHaveLength(3);

    await evaluation(limited.app, tenant, action(other.id));
    const over = await exportTraces(limitedApi, tenant.admin, query);
    expectErrorBody(over, 413, {
      error: 'export_too_large',
      message: 'The export has 4 traces; the limit is 3. Narrow the date range.',
      details: { total: 4, limit: 3 },
    });
    expect(over.headers['content-disposition']).toBeUndefined();
    // Narrowing the export brings it back within the limit.
    expect((await exportTraces(limitedApi, tenant.admin, `${query}&agent_id=${agent.id}`)).headers['x-total-count']).toBe('3');
  });

  it('exports exactly the limit of events, and refuses more with 413 in either format', async () => {
    const tenant = await signupTenant(limited.app);
    const agent = await createAgent(limited.app, tenant.admin);
    await createPolicy(limited.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluated = await evaluation(limited.app, tenant, action(agent.id));
    limitedClock.advance(1_000);
    await decision(limited.app, tenant, evaluated.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' });
    // The evaluation wrote 5 events; the decision, a second later, 3 more.
    const decidedAt = (await traceOf(limited.app, tenant, evaluated.trace_id)).events[5]!.timestamp;

    for (const format of ['json', 'csv']) {
      const atLimit = await exportAudit(limitedApi, tenant.admin, `from=${decidedAt}&to=${decidedAt}&format=${format}`);
      expect(atLimit.statusCode, atLimit.body).toBe(200);
      expect(atLimit.headers['x-total-count']).toBe('3');
      expectErrorBody(await exportAudit(limitedApi, tenant.admin, `${ALL_TIME}&format=${format}`), 413, {
        error: 'export_too_large',
        message: 'The export has 8 events; the limit is 3. Narrow the date range.',
        details: { total: 8, limit: 3 },
      });
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
      denied = (await inBatches(1_001, 20, () => evaluation(t.app, tenant, action(agent.id)))).map((e) => e.trace_id);
      const reviews = await inBatches(4, 4, () => evaluation(t.app, tenant, action(agent.id, { operation: 'review' })));
      await inBatches(4, 4, (i) =>
        decision(t.app, tenant, reviews[i]!.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' }),
      );
      approved = reviews.map((e) => e.trace_id);
    } finally {
      clock.resume();
    }
  });

  it('streams every trace once, ordered by started_at then id across the page boundary', async () => {
    const response = await exportTraces(api, tenant.admin, `${ALL_TIME}&format=csv`);
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
    const response = await exportAudit(api, tenant.admin, ALL_TIME);
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

    const csv = await exportAudit(api, tenant.admin, `${ALL_TIME}&format=csv`);
    expect(csv.headers['x-total-count']).toBe(String(total));
    expect(parseCsv(csv.body, AUDIT_COLUMNS)).toEqual(events.map(asCells));
  });
});
