import { foldTallies } from '@agov/domain';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { client } from './client.js';
import { action } from './fixtures.js';
import { DISPATCH_DATABASES, TestClock, useTestApp, type Credential } from './harness.js';
import { decision, evaluation, succeeded, tenantOverDays } from './scenarios.js';

/*
 * A page of the traces or approvals list from offset 1 000 on starts where the tallies say its
 * first row lies, the day and then the hour, and passes over only the rest; any page past the
 * first finds its first row on the list's index. Pages at offsets below and above 1 000 are
 * checked against the tenant's rows in the list's order, read from the database: for the
 * traces, ranges that cut hours and end on a day's first instant; for both, one agent, one
 * outcome or status; before and after outcomes and decisions move rows between tallies, and
 * after the tallies are folded.
 */
const clock = new TestClock();
const LIMITS = { RATE_LIMIT_READ: '100000', RATE_LIMIT_EVALUATE: '100000', RATE_LIMIT_WRITE: '100000' };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// 600 instants 7.2 minutes apart, three evaluations at each: every 25th instant starts an hour.
const INSTANTS = 600;
const SPACING = 7.2 * MINUTE;
const DEEP = 1_000;

interface Row {
  id: string;
  agent_id: string;
  /** A trace's final outcome, a request's status. */
  state: string;
  at_ms: number;
}

interface Filter {
  query: string;
  selects: (row: Row) => boolean;
}

describe.each(Object.entries(DISPATCH_DATABASES))('on %s', (_kind, database) => {
  const t = useTestApp(async () => ({ clock, env: { ...(await database()), ...LIMITS } }));
  const api = client(t);

  it('at every offset are the rows the offset selects, with the exact total', async () => {
    const { tenant, agents, start } = await tenantOverDays(t.app, clock);

    // Seven of every eight instants are the first agent's, and two of every three evaluations
    // ask for approval, so its traces, its requests and those in progress each pass offset 1 000.
    const allowed: string[] = [];
    const waiting: string[] = [];
    for (let instant = 0; instant < INSTANTS; instant++) {
      if (instant > 0) clock.step(SPACING);
      const agentId = agents[instant % 8 === 7 ? 1 : 0]!.id;
      for (const operation of ['write', 'refund', 'refund']) {
        const evaluated = await evaluation(t.app, tenant, action(agentId, { operation }));
        if (evaluated.decision === 'allow') allowed.push(evaluated.trace_id);
        if (evaluated.approval_request_id) waiting.push(evaluated.approval_request_id);
      }
    }
    const end = start + (INSTANTS - 1) * SPACING;
    const ofFirstAgent: Filter = { query: `&agent_id=${agents[0]!.id}`, selects: (row) => row.agent_id === agents[0]!.id };
    const everything: Filter = { query: '', selects: () => true };

    const iso = (ms: number) => new Date(ms).toISOString();
    const traceRanges: { query: string; from?: number; to?: number }[] = [
      { query: '' },
      { query: `&from=${iso(start + 10 * MINUTE)}`, from: start + 10 * MINUTE },
      // A day's first instant: the traces started then are the next day's, and in the range.
      { query: `&to=${iso(start + 2 * DAY)}`, to: start + 2 * DAY },
      { query: `&to=${iso(end - 50 * MINUTE)}`, to: end - 50 * MINUTE },
      { query: `&from=${iso(start + HOUR + MINUTE)}&to=${iso(end - 3 * HOUR - 1)}`, from: start + HOUR + MINUTE, to: end - 3 * HOUR - 1 },
    ];
    const lists: { path: string; credential: Credential; table: 'traces' | 'approval_requests'; filters: Filter[] }[] = [
      {
        path: '/api/v1/traces',
        credential: tenant.runtimeKey,
        table: 'traces',
        filters: (
          [everything, ofFirstAgent, { query: '&outcome=in_progress', selects: (row) => row.state === 'in_progress' }] as Filter[]
        ).flatMap((filter) =>
          traceRanges.map(
            (range): Filter => ({
              query: `${filter.query}${range.query}`,
              selects: (row) =>
                filter.selects(row) &&
                (range.from === undefined || row.at_ms >= range.from) &&
                (range.to === undefined || row.at_ms <= range.to),
            }),
          ),
        ),
      },
      {
        path: '/api/v1/approvals',
        credential: tenant.admin,
        table: 'approval_requests',
        filters: [everything, ofFirstAgent, { query: '&status=pending', selects: (row) => row.state === 'pending' }],
      },
    ];

    async function expectPages() {
      const mismatches: string[] = [];
      let pagesChecked = 0;
      for (const list of lists) {
        const [state, at] = list.table === 'traces' ? ['final_outcome', 'started_at'] : ['status', 'requested_at'];
        const rows = await t.runtime.database.rows<Row>(
          sql`select id, agent_id, ${sql.raw(state)} as state, (extract(epoch from ${sql.raw(at)}) * 1000)::float8 as at_ms
            from ${sql.raw(list.table)} where tenant_id = ${tenant.tenantId} order by ${sql.raw(at)} desc, id desc`,
        );
        for (const filter of list.filters) {
          const selected = rows.filter(filter.selects);
          expect(selected.length, filter.query).toBeGreaterThan(DEEP);
          const shallow = [1, 20, 500, DEEP - 1];
          const offsets = [...shallow, DEEP, DEEP + 1, selected.length - 1, selected.length, selected.length + 5];
          for (let offset = DEEP + 11; offset < selected.length; offset += 29) offsets.push(offset);
          for (const offset of offsets) {
            const limit = offset % 2 === 0 ? 20 : 100;
            const query = `${list.path}?limit=${limit}&offset=${offset}${filter.query}`;
            const response = await api.get(list.credential, query);
            expect(response.statusCode, response.body).toBe(200);
            const page = response.json();
            const expected = selected.slice(offset, offset + limit).map((row) => row.id);
            const ids = page.data.map((row: { id: string }) => row.id);
            if (page.pagination.total !== selected.length) mismatches.push(`${query}: total ${page.pagination.total}`);
            if (JSON.stringify(ids) !== JSON.stringify(expected)) mismatches.push(`${query}: ${ids.length} rows, not the offset's`);
            pagesChecked++;
          }
        }
      }
      expect(mismatches).toEqual([]);
      return pagesChecked;
    }

    expect(await expectPages()).toBeGreaterThan(300);
    // Outcomes and decisions move rows out of `in_progress` and `pending` in hours all over the lists.
    for (const traceId of allowed.filter((_, index) => index % 20 === 0)) await succeeded(t.app, tenant, traceId);
    for (const [index, approvalId] of waiting.entries())
      if (index % 25 === 0) await decision(t.app, tenant, approvalId, index % 50 === 0 ? 'approve' : 'deny', { approver_name: 'Ops' });
    await expectPages();
    expect(await foldTallies(t.runtime.deps)).toBeGreaterThan(0);
    await expectPages();
    // Some 1 300 pages read three times over, and 1 800 evaluations before them.
  }, 120_000);
});
