import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { approvalRequests, outbox } from '@agov/db';
import { WEBHOOK_EVENTS } from '@agov/domain';
import { expectErrorBody, FORBIDDEN, expectInvalidBody } from './assertions.js';
import { client } from './client.js';
import { action, createPolicy } from './fixtures.js';
import { useTestApp, keyWithScopes, type Tenant } from './harness.js';
import { evaluate, eventTypes, tenantWithAgent, traceOf } from './scenarios.js';

const AGENT_NOT_FOUND = { error: 'not_found', message: 'Agent not found' };

const t = useTestApp();
const api = client(t);

describe('POST /api/v1/evaluate decisions', () => {
  it('allow: returns the rule and rationale; the trace stays in progress', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const rule = await createPolicy(t.app, tenant.admin, agent.id);
    const response = await evaluate(t.app, tenant, action(agent.id));
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      decision: 'allow',
      trace_id: expect.any(String),
      approval_request_id: null,
      reason: 'Routine repository maintenance is allowed.',
      policy_rule_id: rule.id,
    });

    const trace = await traceOf(t.app, tenant, body.trace_id);
    expect(eventTypes(trace)).toEqual(['trace_initiated', 'identity_resolved', 'policy_evaluated', 'operation_allowed']);
    expect(trace).toMatchObject({
      final_outcome: 'in_progress',
      completed_at: null,
      duration_ms: null,
      agent_id: agent.id,
      agent_name: 'invoice-bot',
    });
    expect(trace.events[2]).toMatchObject({ actor_type: 'policy_engine', status: 'allow', policy_version: 1 });
    expect(trace.events[0]).toMatchObject({ actor_type: 'agent', actor_name: 'invoice-bot' });
  });

  it('deny by rule: closes the trace as denied at once', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const rule = await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'deny', rationale: 'Writes are frozen this week.' });
    const body = (await evaluate(t.app, tenant, action(agent.id))).json();
    expect(body).toEqual({
      decision: 'deny',
      trace_id: expect.any(String),
      approval_request_id: null,
      reason: 'Writes are frozen this week.',
      policy_rule_id: rule.id,
    });

    const trace = await traceOf(t.app, tenant, body.trace_id);
    expect(eventTypes(trace)).toEqual(['trace_initiated', 'identity_resolved', 'policy_evaluated', 'operation_denied', 'trace_closed']);
    expect(trace.final_outcome).toBe('denied');
    expect(trace.completed_at).toBe(trace.started_at);
    expect(trace.duration_ms).toBe(0);
  });

  it('default deny when no rule matches', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    await createPolicy(t.app, tenant.admin, agent.id, { target_integration: 'slack' });
    const body = (await evaluate(t.app, tenant, action(agent.id))).json();
    expect(body).toMatchObject({ decision: 'deny', policy_rule_id: null, approval_request_id: null });
    expect(body.reason).toMatch(/no policy rule matched/i);
    expect((await traceOf(t.app, tenant, body.trace_id)).final_outcome).toBe('denied');
  });

  it('approval_required: queues an approval and records its effects in the same write', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app, { environment: 'prod' });
    await receiveEverything(tenant);
    const rule = await createPolicy(t.app, tenant.admin, agent.id, {
      policy_effect: 'approval_required',
      data_classification: 'confidential',
      rationale: 'Confidential writes need a human.',
      max_session_ttl: 600,
    });
    const context = { ticket: 'OPS-42', amount: 1200 };
    const response = await evaluate(t.app, tenant, { ...action(agent.id, { data_classification: 'confidential' }), context });
    const body = response.json();
    expect(body).toEqual({
      decision: 'approval_required',
      trace_id: expect.any(String),
      approval_request_id: expect.any(String),
      reason: 'Confidential writes need a human.',
      policy_rule_id: rule.id,
      // confidential → high, raised one level because the agent runs in prod.
      risk_classification: 'critical',
    });

    const trace = await traceOf(t.app, tenant, body.trace_id);
    expect(eventTypes(trace)).toEqual([
      'trace_initiated',
      'identity_resolved',
      'policy_evaluated',
      'sensitive_operation_detected',
      'approval_requested',
    ]);
    expect(trace.final_outcome).toBe('in_progress');
    expect(trace.events[4]!.approval_request_id).toBe(body.approval_request_id);
    expect(trace.approval_requests).toEqual([{ id: body.approval_request_id, status: 'pending', approver_name: null, decided_at: null }]);

    const { db } = t.runtime.database;
    const [approval] = await db.select().from(approvalRequests).where(eq(approvalRequests.id, body.approval_request_id));
    expect(approval).toMatchObject({
      status: 'pending',
      riskClassification: 'critical',
      flagReason: 'Confidential writes need a human.',
      contextSnapshot: context,
      delegatedFrom: 'Olivia Owner',
    });
    expect(approval!.expiresAt.getTime() - approval!.requestedAt.getTime()).toBe(600_000);

    // The rule's creation recorded its own policy.updated, and the settings' save a confirmation
    // mail to the reviewer; the rest is the evaluation's.
    const effects = (await db.select().from(outbox).where(eq(outbox.tenantId, tenant.tenantId))).filter(
      (row) => row.payload.event !== 'policy.updated' && row.kind !== 'email_confirmation',
    );
    const byKind = Object.fromEntries(effects.map((row) => [row.kind, row]));
    expect(effects.map((row) => row.kind).sort()).toEqual(['approval_email', 'approval_expiry', 'audit_events', 'chat_card', 'webhook']);
    expect(byKind.webhook!.payload).toMatchObject({
      event: 'approval.requested',
      tenant_id: tenant.tenantId,
      id: expect.any(String),
      data: { approval: { id: body.approval_request_id, status: 'pending', risk_classification: 'critical', context_snapshot: context } },
    });
    expect(byKind.approval_expiry!.availableAt.getTime()).toBe(approval!.expiresAt.getTime());
    expect(byKind.audit_events!.payload).toEqual({ trace_id: body.trace_id, from_seq: 1, to_seq: 5 });
  });

  it('records no effect that nobody would receive: only the expiry, for a tenant with no endpoint, e-mail or chat', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const before = await outboxKinds(tenant);
    const approval = (await evaluate(t.app, tenant, action(agent.id))).json();
    expect(approval.decision).toBe('approval_required');
    const allowed = await createPolicy(t.app, tenant.admin, agent.id, { operation: 'read', policy_effect: 'allow', priority: 900 });
    expect((await evaluate(t.app, tenant, action(agent.id, { operation: 'read' }))).json().policy_rule_id).toBe(allowed.id);

    // The rule's creation recorded a policy.updated webhook (dropped later by the relay); the evaluations added only the expiry.
    expect(await outboxKinds(tenant)).toEqual([...before, 'approval_expiry', 'webhook'].sort());
  });

  it('uses the tenant default of 86400 s when the rule sets no time-to-live', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const body = (await evaluate(t.app, tenant, action(agent.id))).json();
    const [approval] = await t.runtime.database.db.select().from(approvalRequests).where(eq(approvalRequests.id, body.approval_request_id));
    expect(approval!.expiresAt.getTime() - approval!.requestedAt.getTime()).toBe(86_400_000);
  });

  it('creates a new trace on every call', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    await createPolicy(t.app, tenant.admin, agent.id);
    const first = (await evaluate(t.app, tenant, action(agent.id))).json();
    const second = (await evaluate(t.app, tenant, action(agent.id))).json();
    expect(first.trace_id).not.toBe(second.trace_id);
    const list = await api.get(tenant.runtimeKey, `/api/v1/traces?agent_id=${agent.id}`);
    expect(list.json().pagination.total).toBe(2);
  });
});

describe('rule matching', () => {
  it('evaluates higher priority first, whatever the effect', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'deny', priority: 1 });
    const winner = await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'allow', priority: 50 });
    expect((await evaluate(t.app, tenant, action(agent.id))).json()).toMatchObject({ decision: 'allow', policy_rule_id: winner.id });
  });

  it('on equal priority the most restrictive effect wins, then the oldest rule', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'allow' });
    const approval = await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    expect((await evaluate(t.app, tenant, action(agent.id))).json().policy_rule_id).toBe(approval.id);
    const deny = await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'deny' });
    expect((await evaluate(t.app, tenant, action(agent.id))).json().policy_rule_id).toBe(deny.id);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'deny', rationale: 'A younger deny rule.' });
    expect((await evaluate(t.app, tenant, action(agent.id))).json().policy_rule_id).toBe(deny.id);
  });

  it.each([
    ['* integration', { target_integration: '*' }, {}, true],
    ['* operation', { operation: '*' }, { operation: 'delete' }, true],
    ['glob across slashes', { resource_scope: 'repo/*' }, { resource_scope: 'repo/a/b/c' }, true],
    ['glob with inner star', { resource_scope: 'repo/*/main' }, { resource_scope: 'repo/app/main' }, true],
    ['glob not matching', { resource_scope: 'repo/*' }, { resource_scope: 'other/repo/x' }, false],
    ['exact scope', { resource_scope: 'repo/app' }, { resource_scope: 'repo/app' }, true],
    ['exact scope, different', { resource_scope: 'repo/app' }, { resource_scope: 'repo/apps' }, false],
    ['classification is exact', { data_classification: 'internal' }, { data_classification: 'restricted' }, false],
    ['operation is exact', { operation: 'write' }, { operation: 'writes' }, false],
  ])('%s', async (_label, rule, request, matches) => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const created = await createPolicy(t.app, tenant.admin, agent.id, rule);
    const body = (await evaluate(t.app, tenant, action(agent.id, request))).json();
    expect(body.policy_rule_id).toBe(matches ? created.id : null);
  });

  it('applies JSON Logic conditions over context, agent and request', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app, { environment: 'test' });
    const rule = await createPolicy(t.app, tenant.admin, agent.id, {
      conditions: {
        and: [
          // A missing amount is null, and null <= 100 holds in JSON Logic: bound it below too.
          { '<=': [1, { var: 'context.amount' }, 100] },
          { '==': [{ var: 'agent.environment' }, 'test'] },
          { '==': [{ var: 'request.resource_scope' }, 'repo/app'] },
        ],
      },
    });
    expect((await evaluate(t.app, tenant, { ...action(agent.id), context: { amount: 50 } })).json().policy_rule_id).toBe(rule.id);
    expect((await evaluate(t.app, tenant, { ...action(agent.id), context: { amount: 500 } })).json().policy_rule_id).toBeNull();
    expect((await evaluate(t.app, tenant, action(agent.id))).json().policy_rule_id).toBeNull();
  });

  it('never matches a deleted rule', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const rule = await createPolicy(t.app, tenant.admin, agent.id);
    expect((await evaluate(t.app, tenant, action(agent.id))).json().decision).toBe('allow');
    await api.delete(tenant.admin, `/api/v1/policies/${rule.id}`);
    expect((await evaluate(t.app, tenant, action(agent.id))).json()).toMatchObject({ decision: 'deny', policy_rule_id: null });
  });

  it('sees a policy change on the very next call', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const rule = await createPolicy(t.app, tenant.admin, agent.id);
    expect((await evaluate(t.app, tenant, action(agent.id))).json().decision).toBe('allow');
    const patched = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { policy_effect: 'deny' });
    expect(patched.statusCode).toBe(200);
    expect((await evaluate(t.app, tenant, action(agent.id))).json().decision).toBe('deny');
    await createPolicy(t.app, tenant.admin, agent.id, { priority: 99, rationale: 'A new, higher rule wins.' });
    expect((await evaluate(t.app, tenant, action(agent.id))).json().reason).toBe('A new, higher rule wins.');
  });
});

describe('agent lifecycle and risk', () => {
  it.each(['suspend', 'revoke'])('denies every action of an agent after %s, naming the state', async (move) => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    await createPolicy(t.app, tenant.admin, agent.id);
    expect((await evaluate(t.app, tenant, action(agent.id))).json().decision).toBe('allow');
    expect((await api.post(tenant.admin, `/api/v1/agents/${agent.id}/${move}`)).statusCode).toBe(200);

    const body = (await evaluate(t.app, tenant, action(agent.id))).json();
    const state = move === 'suspend' ? 'suspended' : 'revoked';
    expect(body).toMatchObject({ decision: 'deny', policy_rule_id: null, approval_request_id: null });
    expect(body.reason).toContain(state);
    const trace = await traceOf(t.app, tenant, body.trace_id);
    expect(trace.final_outcome).toBe('denied');
    expect(trace.events[1]).toMatchObject({ event_type: 'identity_resolved', status: state });
  });

  it.each([
    ['public', { environment: 'dev', autonomy_tier: 'low' }, 'low'],
    ['internal', { environment: 'dev', autonomy_tier: 'medium' }, 'medium'],
    ['confidential', { environment: 'test', autonomy_tier: 'low' }, 'high'],
    ['restricted', { environment: 'dev', autonomy_tier: 'low' }, 'critical'],
    ['public', { environment: 'dev', autonomy_tier: 'high' }, 'medium'],
    ['internal', { environment: 'prod', autonomy_tier: 'low' }, 'high'],
    ['confidential', { environment: 'prod', autonomy_tier: 'high' }, 'critical'],
    ['restricted', { environment: 'prod', autonomy_tier: 'high' }, 'critical'],
  ])('risk of %s data for %o is %s', async (classification, agentTraits, risk) => {
    const { tenant, agent } = await tenantWithAgent(t.app, agentTraits);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', data_classification: classification });
    const body = (await evaluate(t.app, tenant, action(agent.id, { data_classification: classification }))).json();
    expect(body.risk_classification).toBe(risk);
  });
});

describe('evaluate errors and access', () => {
  it("answers 404 for an unknown agent and for another tenant's agent, writing nothing", async () => {
    const { tenant } = await tenantWithAgent(t.app);
    const other = await tenantWithAgent(t.app);
    for (const agentId of ['6b1e1e0e-0000-4000-8000-000000000000', other.agent.id]) {
      expectErrorBody(await evaluate(t.app, tenant, action(agentId)), 404, AGENT_NOT_FOUND);
    }
    const list = await api.get(tenant.runtimeKey, '/api/v1/traces');
    expect(list.json().pagination.total).toBe(0);
  });

  it.each([
    ['an unknown classification', { data_classification: 'secret' }, 'data_classification', 'must be equal to one of the allowed values'],
    ['a missing operation', { operation: undefined }, 'operation', 'is required'],
    ['an unknown field', { priority: 1 }, 'priority', 'is not allowed'],
    ['a context that is not an object', { context: 'text' }, 'context', 'must be object'],
    ['an agent id that is not a UUID', { agent_id: 'agent-1' }, 'agent_id', 'must match format "uuid"'],
  ])('rejects %s with 400', async (_label, change, field, problem) => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const response = await evaluate(t.app, tenant, { ...action(agent.id), ...change });
    expectInvalidBody(response, [[field, problem]]);
  });

  it('rejects a context nested deeper than 32 levels', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    let context: Record<string, unknown> = { leaf: true };
    for (let depth = 0; depth < 40; depth += 1) context = { next: context };
    const response = await evaluate(t.app, tenant, { ...action(agent.id), context });
    expectInvalidBody(response, [['context', 'must be at most 32 levels deep']]);
  });

  it('needs the evaluate scope; dashboard sessions may not evaluate', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const reader = await keyWithScopes(t.app, tenant, ['agents:read']);
    expectErrorBody(await api.post(reader, '/api/v1/evaluate', action(agent.id)), 403, {
      ...FORBIDDEN,
      details: { required_scope: 'evaluate', scopes: ['agents:read'] },
    });
    expectErrorBody(await api.post(tenant.admin, '/api/v1/evaluate', action(agent.id)), 403, {
      ...FORBIDDEN,
      details: { required_scope: 'evaluate', scopes: [] },
    });
    expectErrorBody(await api.post(null, '/api/v1/evaluate', action(agent.id)), 401, {
      error: 'unauthorized',
      message: 'Authentication required: send Authorization: Bearer <API key> or sign in',
    });
  });
});

describe('POST /api/v1/policies/test (dry run)', () => {
  it('answers what evaluate would decide and writes nothing', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const rule = await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const response = await api.post(tenant.runtimeKey, '/api/v1/policies/test', action(agent.id));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      effect: 'approval_required',
      rule_id: rule.id,
      rationale: 'Routine repository maintenance is allowed.',
      policy_version: 1,
    });

    const none = await api.post(tenant.runtimeKey, '/api/v1/policies/test', action(agent.id, { operation: 'read' }));
    expect(none.json()).toEqual({
      effect: 'deny',
      rule_id: null,
      rationale: expect.stringMatching(/no policy rule matched/i),
      policy_version: null,
    });

    const traces = await api.get(tenant.runtimeKey, '/api/v1/traces');
    expect(traces.json().pagination.total).toBe(0);
    const effects = await t.runtime.database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, 'audit_events')));
    expect(effects).toHaveLength(0);
  });

  it('rejects a context (the dry run takes none) and unknown agents', async () => {
    const { tenant, agent } = await tenantWithAgent(t.app);
    const withContext = await api.post(tenant.runtimeKey, '/api/v1/policies/test', { ...action(agent.id), context: {} });
    expectInvalidBody(withContext, [['context', 'is not allowed']]);
    const other = await tenantWithAgent(t.app);
    const foreign = await api.post(tenant.runtimeKey, '/api/v1/policies/test', action(other.agent.id));
    expectErrorBody(foreign, 404, AGENT_NOT_FOUND);
  });
});

/** The kinds of the tenant's outbox rows, sorted. */
async function outboxKinds(tenant: Tenant): Promise<string[]> {
  const rows = await t.runtime.database.db.select({ kind: outbox.kind }).from(outbox).where(eq(outbox.tenantId, tenant.tenantId));
  return rows.map((row) => row.kind).sort();
}

/** Every channel switched on: an endpoint for every event, reviewers' e-mail, and a chat card. */
async function receiveEverything(tenant: Tenant) {
  const endpoint = await api.post(tenant.admin, '/api/v1/webhooks', { url: 'https://93.184.215.14/all', events: [...WEBHOOK_EVENTS] });
  expect(endpoint.statusCode, endpoint.body).toBe(201);
  const email = await api.put(tenant.admin, '/api/v1/settings/notifications', {
    email_enabled: true,
    reviewer_emails: ['rita@example.test'],
  });
  expect(email.statusCode, email.body).toBe(200);
  const chat = await api.put(tenant.admin, '/api/v1/integrations/chat', {
    mode: 'incoming_webhook',
    enabled: true,
    webhook_url: 'https://93.184.215.14/chat',
  });
  expect(chat.statusCode, chat.body).toBe(200);
}
