/**
 * `npm run bench:simulate`: how fast POST /policies/simulate re-decides recorded traffic. The
 * built API runs in its own process on a fresh database. One tenant, four agents with rules
 * (one with a condition on `context.amount`), and one real evaluation per agent (one of them
 * made while its agent was suspended) serve as templates: 1 000 000 copies of them are written
 * by SQL, 10 ms apart, each with its first three events (the two simulate reads and
 * policy_evaluated) and its own `context.amount`. Then a draft that creates a rule with a
 * condition on context, updates one rule and deletes another is simulated over the whole window
 * three times, and each run prints evaluations re-decided per second.
 *
 * Environment: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_LOG_LEVEL (default warn), BENCH_SIMULATE_TRACES (default 1 000 000).
 */
import { call, copyTraces, markdownTable, signUp, spaced, withFreshService } from './support.js';

const TRACES = Number(process.env.BENCH_SIMULATE_TRACES ?? 1_000_000);
const RUNS = 3;
/** Copy i starts i × 10 ms after this. */
const T0 = Date.parse('2026-10-01T00:00:00.000Z');
const SPACING_MS = 10;

async function main() {
  await withFreshService(async (service, database) => {
    const seed = await seedTenant(service.url);
    let started = performance.now();
    await copyTraces(database, seed.tenantId, { count: TRACES, startMs: T0, spacingMs: SPACING_MS, lastSeq: 3, varyAmount: true });
    console.log(`\nInserted ${TRACES} traces and ${TRACES * 3} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const window = { from: new Date(T0).toISOString(), to: new Date(T0 + TRACES * SPACING_MS).toISOString() };
    const rows: string[][] = [];
    for (let run = 1; run <= RUNS; run += 1) {
      started = performance.now();
      const { body } = await call<{ data: { evaluated: number; changed: number; transitions: unknown[] } }>(
        service.url,
        '/api/v1/policies/simulate',
        { method: 'POST', headers: seed.headers, body: { ...window, changes: seed.draft } },
      );
      const seconds = (performance.now() - started) / 1000;
      if (body.data.evaluated !== TRACES) throw new Error(`expected ${TRACES} evaluations, got ${body.data.evaluated}`);
      rows.push([
        String(run),
        String(body.data.evaluated),
        String(body.data.changed),
        seconds.toFixed(2),
        spaced(body.data.evaluated / seconds),
      ]);
      if (run === 1) console.log('transitions:', JSON.stringify(body.data.transitions));
    }
    const header = ['run', 'evaluated', 'changed', 's', 'evaluations/s'];
    console.log(markdownTable(header, rows));
  });
}

const agentBody = (name: string) => ({
  name,
  description: 'Bench agent',
  owner_name: 'Olivia Owner',
  owner_role: 'Finance lead',
  team: 'finance',
  environment: 'prod',
  authority_model: 'delegated',
  identity_mode: 'service_identity',
  delegation_model: 'on_behalf_of_owner',
  autonomy_tier: 'medium',
  authorized_integrations: [],
  credential_config: null,
  metadata: null,
  next_review_date: '2027-01-31',
  created_by: 'olivia@example.test',
  modified_by: 'olivia@example.test',
  modified_at: '2026-11-01T09:00:00.000Z',
});

const ruleBody = (agentId: string, overrides: Record<string, unknown> = {}) => ({
  agent_id: agentId,
  policy_name: 'Allow payments',
  target_integration: 'stripe',
  operation: 'refund',
  resource_scope: 'charges/*',
  data_classification: 'confidential',
  policy_effect: 'allow',
  rationale: 'Refunds are part of the job.',
  priority: 10,
  conditions: null,
  max_session_ttl: null,
  modified_by: 'olivia@example.test',
  modified_at: '2026-11-01T09:00:00.000Z',
  ...overrides,
});

/**
 * Four agents: `a` allowed refunds, `b` allowed them with reviews above 800 (a condition on
 * context), `c` allowed them, `d` allowed them but suspended when its template was recorded.
 * One evaluation each is the template of the copies. The draft: `a` needs a reviewer above 500
 * (a new rule with a condition), `b`'s review rule denies instead, `c`'s allow is deleted.
 */
async function seedTenant(base: string) {
  const { headers, runtimeKey } = await signUp(base);
  const post = async (path: string, body?: unknown) => (await call(base, path, { method: 'POST', headers, body })).body.data;
  const agents: string[] = [];
  for (const name of ['a', 'b', 'c', 'd']) agents.push((await post('/api/v1/agents', agentBody(`bench-${name}`))).id as string);
  const [a, b, c, d] = agents as [string, string, string, string];
  await post('/api/v1/policies', ruleBody(a));
  await post('/api/v1/policies', ruleBody(b));
  const review = (await post(
    '/api/v1/policies',
    ruleBody(b, { policy_effect: 'approval_required', priority: 20, conditions: { '>': [{ var: 'context.amount' }, 800] } }),
  )) as { id: string };
  const allowC = (await post('/api/v1/policies', ruleBody(c))) as { id: string };
  await post('/api/v1/policies', ruleBody(d));

  await post(`/api/v1/agents/${d}/suspend`);
  for (const agentId of agents) {
    await call(base, '/api/v1/evaluate', {
      method: 'POST',
      headers: { authorization: `Bearer ${runtimeKey}` },
      body: {
        agent_id: agentId,
        operation: 'refund',
        target_integration: 'stripe',
        resource_scope: 'charges/ch_1',
        data_classification: 'confidential',
        context: { amount: 1, currency: 'EUR' },
      },
    });
  }
  await post(`/api/v1/agents/${d}/reactivate`);
  const me = (await call(base, '/api/v1/auth/me', { method: 'GET', headers })).body.data as { tenant: { id: string } };
  const draft = [
    {
      action: 'create',
      rule: ruleBody(a, { policy_effect: 'approval_required', priority: 20, conditions: { '>': [{ var: 'context.amount' }, 500] } }),
    },
    { action: 'update', policy_rule_id: review.id, rule: { policy_effect: 'deny' } },
    { action: 'delete', policy_rule_id: allowC.id },
  ];
  return { headers, tenantId: me.tenant.id, draft };
}

await main();
