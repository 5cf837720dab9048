/**
 * `npm run bench`: the built API in its own process on a real PostgreSQL (synchronous commit
 * on), driven by autocannon with 64 connections. A tenant has 50 active rules per agent, and
 * the matching rule is the lowest, so every decision scans them all.
 *
 * Environment: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_DURATION_S (default 10), BENCH_CONNECTIONS (default 64), BENCH_LOG_LEVEL (default warn).
 */
import autocannon from 'autocannon';
import { build, call, freshDatabase, signUp, startService } from './support.js';

const duration = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);

async function main() {
  build();
  const database = await freshDatabase();
  const [{ synchronous_commit }] = (await database.admin`show synchronous_commit`) as unknown as [{ synchronous_commit: string }];
  const service = await startService(database.url);
  try {
    const base = service.url;
    const seed = await seedTenant(base);
    console.log(`\nPostgreSQL synchronous_commit=${synchronous_commit}; ${connections} connections, ${duration} s per scenario\n`);
    const scenarios = [
      { title: 'evaluate → allow', path: '/api/v1/evaluate', body: seed.allowAction },
      { title: 'evaluate → approval_required', path: '/api/v1/evaluate', body: seed.approvalAction },
      { title: 'dry run POST /policies/test', path: '/api/v1/policies/test', body: seed.allowAction },
    ];
    const rows = [];
    for (const scenario of scenarios) {
      const result = await autocannon({
        url: `${base}${scenario.path}`,
        method: 'POST',
        connections,
        duration,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${seed.apiKey}` },
        body: JSON.stringify(scenario.body),
      });
      rows.push({
        scenario: scenario.title,
        'requests/s': Math.round(result.requests.average),
        'p50 ms': result.latency.p50,
        'p99 ms': result.latency.p99,
        'non-2xx': result.non2xx,
        errors: result.errors,
      });
    }
    console.table(rows);
  } finally {
    await service.stop();
    await database.drop();
  }
}

/** A tenant with two agents, each with 49 rules that do not match above the one that does. */
async function seedTenant(base: string) {
  const { headers, runtimeKey: apiKey } = await signUp(base);
  const agentFor = async (name: string) =>
    (
      await call(base, '/api/v1/agents', {
        method: 'POST',
        headers,
        body: {
          name, description: 'bench agent', owner_name: 'Bench', owner_role: 'owner', team: 'bench', environment: 'prod',
          authority_model: 'self', identity_mode: 'service_identity', delegation_model: 'self', autonomy_tier: 'medium',
          authorized_integrations: [], credential_config: null, metadata: null, next_review_date: '2027-01-01',
          created_by: 'bench', modified_by: 'bench', modified_at: '2026-01-01T00:00:00.000Z',
        },
      })
    ).body.data.id as string;
  const rule = (agentId: string, index: number, effect: string, integration: string) => ({
    agent_id: agentId, policy_name: `rule ${index}`, target_integration: integration, operation: 'write',
    resource_scope: 'repo/*', data_classification: 'internal', policy_effect: effect, rationale: `Benchmark rule number ${index}.`,
    priority: index, conditions: null, max_session_ttl: null, modified_by: 'bench', modified_at: '2026-01-01T00:00:00.000Z',
  });
  const allowAgent = await agentFor('allow-bot');
  const approvalAgent = await agentFor('approval-bot');
  for (const [agentId, effect] of [[allowAgent, 'allow'], [approvalAgent, 'approval_required']] as const) {
    await call(base, '/api/v1/policies', { method: 'POST', headers, body: rule(agentId, 0, effect, 'github') });
    for (let index = 1; index < 50; index += 1) {
      await call(base, '/api/v1/policies', { method: 'POST', headers, body: rule(agentId, index, 'deny', `other-${index}`) });
    }
  }
  const actionOf = (agentId: string) => ({ agent_id: agentId, operation: 'write', target_integration: 'github', resource_scope: 'repo/app', data_classification: 'internal' });
  return { apiKey, allowAction: actionOf(allowAgent), approvalAction: { ...actionOf(approvalAgent), context: { ticket: 'BENCH-1' } } };
}

await main();
