import { describe, expect, it } from 'vitest';
import { useEmbeddedService } from '../../../test/embedded-service.js';
import { agentBody, policyBody } from '../../../apps/api/test/fixtures.js';
import { createClient, verifyTraceExport } from '../src/index.js';
import { writeToRepo } from './service.js';

/** The built service as `npm start` runs it with no DATABASE_URL: embedded PostgreSQL. */
describe('guard() against the service in embedded mode', () => {
  const service = useEmbeddedService();

  it('allows, and waits for an approval, records outcomes that verify', async () => {
    const signup = await fetch(`${service.baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization_name: 'Embedded', name: 'Em', email: 'em@example.test', password: 'a long enough password' }),
    });
    expect(signup.status).toBe(201);
    const runtimeKey = ((await signup.json()) as { data: { api_key: { key: string } } }).data.api_key.key;
    const cookie = /agov_session=[^;]+/.exec(signup.headers.get('set-cookie')!)![0];
    const issued = await fetch(`${service.baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-requested-with': 'XMLHttpRequest' },
      body: JSON.stringify({ name: 'admin', scopes: ['admin'] }),
    });
    expect(issued.status).toBe(201);
    const admin = createClient({ baseUrl: service.baseUrl, apiKey: ((await issued.json()) as { data: { key: string } }).data.key });
    const runtime = createClient({ baseUrl: service.baseUrl, apiKey: runtimeKey });

    const agent = await admin.createAgent(agentBody() as never);
    await admin.createPolicyRule(policyBody(agent.id, { resource_scope: 'repo/*', policy_effect: 'allow' }) as never);
    await admin.createPolicyRule(policyBody(agent.id, { resource_scope: 'prod/*', policy_effect: 'approval_required' }) as never);

    expect(await runtime.guard(writeToRepo(agent.id), () => 'allowed')).toBe('allowed');
    let traceId = '';
    const approved = await runtime.guard({ ...writeToRepo(agent.id), resource_scope: 'prod/db' }, () => 'approved', {
      pollIntervalMs: 100,
      onEvaluated: (evaluation) => {
        traceId = evaluation.trace_id;
        setTimeout(() => void admin.approveApproval(evaluation.approval_request_id!, { approver_name: 'Rita' }), 200);
      },
    });
    expect(approved).toBe('approved');
    const file = await admin.exportTrace(traceId);
    expect(file.trace.final_outcome).toBe('completed_with_approval');
    expect(await verifyTraceExport(file)).toMatchObject({ valid: true, eventCount: 10 });
    expect(service.output).toContain('"database":"pglite"');
  });
});
