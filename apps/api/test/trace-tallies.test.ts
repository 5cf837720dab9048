import { foldTallies } from '@agov/domain';
import { describe, expect, it } from 'vitest';
import { client } from './client.js';
import { action } from './fixtures.js';
import { DISPATCH_DATABASES, TestClock, useTestApp } from './harness.js';
import { decision, evaluation, succeeded, tenantOverDays } from './scenarios.js';

/*
 * The traces list's total and the agent detail's counts come from tallies per hour, their
 * changes not yet folded, and the traces of the hours a range cuts. Each is checked against
 * the traces themselves, listed and counted here, for ranges that fall on, just off and
 * between hours, before the changes are folded, after, and with new changes on folded tallies.
 */
const clock = new TestClock();
const LIMITS = { RATE_LIMIT_READ: '100000', RATE_LIMIT_EVALUATE: '100000', RATE_LIMIT_WRITE: '100000' };

const HOUR = 3_600_000;
const DECISIONS: Record<string, string> = { write: 'allow', refund: 'approval_required', delete: 'deny' };
const MINUTE = 60_000;
const DAY = 24 * HOUR;

interface Listed {
  id: string;
  agent_id: string;
  requested_operation: string;
  final_outcome: string;
  started_at: string;
}

// On each kind of database, one of its own: the folds here take every tenant's changes, and must see only these.
describe.each(Object.entries(DISPATCH_DATABASES))('on %s', (_kind, database) => {
  const t = useTestApp(async () => ({ clock, env: { ...(await database()), ...LIMITS } }));
  const api = client(t);

  it('are exact for every range, agent, outcome and status, folded or not, as outcomes and decisions move rows between tallies', async () => {
    const { tenant, agents, start } = await tenantOverDays(t.app, clock);

    // Evaluations on either side of hour boundaries, for both agents: allowed writes, refunds that wait, deletes denied.
    const offsets = [
      0,
      10 * MINUTE,
      HOUR - 1,
      HOUR,
      HOUR + 30 * MINUTE,
      3 * HOUR,
      DAY - 1,
      DAY,
      DAY + 2 * HOUR + 5 * MINUTE,
      2 * DAY + 4 * HOUR - 1,
    ];
    const allowed: string[] = [];
    const waiting: string[] = [];
    let at = start;
    for (const [index, offset] of offsets.entries()) {
      clock.step(start + offset - at);
      at = start + offset;
      const agentId = agents[index % 2]!.id;
      for (const operation of ['write', 'refund', 'delete']) {
        const evaluated = await evaluation(t.app, tenant, action(agentId, { operation }));
        if (evaluated.decision === 'allow') allowed.push(evaluated.trace_id);
        if (evaluated.approval_request_id) waiting.push(evaluated.approval_request_id);
      }
    }

    const listed = async (): Promise<Listed[]> => {
      const response = await api.get(tenant.runtimeKey, '/api/v1/traces?limit=100');
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data;
    };
    const instants = [
      start - HOUR,
      start,
      start + 10 * MINUTE,
      start + HOUR - 1,
      start + HOUR,
      start + 2 * HOUR + 30 * MINUTE,
      start + DAY - 1,
    ];
    instants.push(start + DAY, start + DAY + 3 * HOUR, start + 2 * DAY, start + 2 * DAY + 4 * HOUR - 1, start + 3 * DAY);
    const iso = (ms: number) => new Date(ms).toISOString();

    const detailAt = start + 2 * DAY + 30 * MINUTE;
    async function expectExactTotals() {
      const traces = await listed();
      expect(traces).toHaveLength(offsets.length * 3);
      const filters: { query: string; selects: (trace: Listed) => boolean }[] = [
        { query: '', selects: () => true },
        { query: `&agent_id=${agents[0]!.id}`, selects: (trace) => trace.agent_id === agents[0]!.id },
        { query: '&outcome=in_progress', selects: (trace) => trace.final_outcome === 'in_progress' },
        {
          query: `&outcome=executed&agent_id=${agents[1]!.id}`,
          selects: (trace) => trace.final_outcome === 'executed' && trace.agent_id === agents[1]!.id,
        },
      ];
      const ranges: { query: string; from?: number; to?: number }[] = [{ query: '' }];
      for (const from of instants) ranges.push({ query: `&from=${iso(from)}`, from });
      for (const to of instants) ranges.push({ query: `&to=${iso(to)}`, to });
      for (const from of instants)
        for (const to of instants) if (from <= to) ranges.push({ query: `&from=${iso(from)}&to=${iso(to)}`, from, to });
      const mismatches: string[] = [];
      for (const filter of filters) {
        for (const range of ranges) {
          const expected = traces.filter((trace) => {
            const startedAt = Date.parse(trace.started_at);
            return (
              filter.selects(trace) &&
              (range.from === undefined || startedAt >= range.from) &&
              (range.to === undefined || startedAt <= range.to)
            );
          }).length;
          const response = await api.get(tenant.runtimeKey, `/api/v1/traces?limit=1${filter.query}${range.query}`);
          const total = response.json().pagination?.total;
          if (total !== expected) mismatches.push(`${filter.query}${range.query}: ${total} instead of ${expected}`);
        }
      }
      expect(mismatches).toEqual([]);

      const approvals = (await api.get(tenant.admin, '/api/v1/approvals?limit=100')).json().data as { agent_id: string; status: string }[];
      expect(approvals).toHaveLength(offsets.length);
      for (const status of [undefined, 'pending', 'approved', 'denied', 'expired']) {
        const ofStatus = approvals.filter((approval) => status === undefined || approval.status === status);
        const query = status ? `?status=${status}` : '';
        expect((await api.get(tenant.admin, `/api/v1/approvals/count${query}`)).json()).toEqual({ count: ofStatus.length });
        const ofAgent = ofStatus.filter((approval) => approval.agent_id === agents[1]!.id);
        const listed = await api.get(
          tenant.admin,
          `/api/v1/approvals?limit=1&agent_id=${agents[1]!.id}${status ? `&status=${status}` : ''}`,
        );
        expect(listed.json().pagination.total).toBe(ofAgent.length);
      }

      // The detail's day reaches back to half an hour into the second day's first hour, cutting it.
      clock.step(detailAt - at);
      for (const agent of agents) {
        const own = traces.filter((trace) => trace.agent_id === agent.id);
        const day = own.filter((trace) => Date.parse(trace.started_at) >= detailAt - DAY);
        // The rules decide by operation; a list item does not show the decision.
        const count = (decided: string) => day.filter((trace) => DECISIONS[trace.requested_operation] === decided).length;
        const detail = (await api.get(tenant.admin, `/api/v1/agents/${agent.id}`)).json().data;
        const requests = approvals.filter((approval) => approval.agent_id === agent.id);
        const ofStatus = (status: string) => requests.filter((approval) => approval.status === status).length;
        expect({ total: detail.stats.trace_count, day: detail.stats.decisions_last_24h, approvals: detail.stats.approval_counts }).toEqual({
          total: own.length,
          day: { allow: count('allow'), approval_required: count('approval_required'), deny: count('deny') },
          approvals: {
            pending: ofStatus('pending'),
            approved: ofStatus('approved'),
            denied: ofStatus('denied'),
            expired: ofStatus('expired'),
          },
        });
      }
      clock.step(at - detailAt);
    }

    await expectExactTotals();
    for (const traceId of allowed.slice(0, 3)) await succeeded(t.app, tenant, traceId);
    await decision(t.app, tenant, waiting[0]!, 'approve', { approver_name: 'Ops' });
    await decision(t.app, tenant, waiting[1]!, 'deny', { approver_name: 'Ops' });
    await expectExactTotals();

    expect(await foldTallies(t.runtime.deps)).toBeGreaterThan(0);
    expect(await foldTallies(t.runtime.deps)).toBe(0);
    await expectExactTotals();

    for (const traceId of allowed.slice(3)) await succeeded(t.app, tenant, traceId);
    await decision(t.app, tenant, waiting[2]!, 'deny', { approver_name: 'Ops' });
    await expectExactTotals();
    await foldTallies(t.runtime.deps);
    await expectExactTotals();
  });
});
