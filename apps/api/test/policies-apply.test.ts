import { describe, expect, it } from 'vitest';
import { expectErrorBody, notFound } from './assertions.js';
import { client } from './client.js';
import { createAgent, createPolicy, policyBody } from './fixtures.js';
import { policyEvents, versions } from './policy-rules.js';
import { signupTenant, type Tenant, useTestApp } from './harness.js';

/** GET /policies/revision and POST /policies/apply: a change set made live in one transaction under an optimistic lock. */
const t = useTestApp();
const api = client(t);

const SUMMARY = 'Applied from policies.yaml (sha256:0123)';
const REVISION = /^sha256:[0-9a-f]{64}$/;

async function tenantWithRules() {
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin, { name: 'ops' });
  const writes = await createPolicy(t.app, tenant.admin, agent.id);
  const deploys = await createPolicy(t.app, tenant.admin, agent.id, { operation: 'deploy', policy_name: 'Deploys' });
  return { tenant, agent, writes, deploys };
}

const revisionOf = async (tenant: Tenant) => {
  const response = await api.get(tenant.admin, '/api/v1/policies/revision');
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.revision as string;
};

/** The tenant's rules as the list shows them, oldest first: enough to see that nothing was written. */
const rulesOf = async (tenant: Tenant) =>
  (await api.get(tenant.admin, '/api/v1/policies?limit=100')).json().data.map((rule: Record<string, unknown>) => ({
    id: rule.id,
    policy_version: rule.policy_version,
    is_active: rule.is_active,
    priority: rule.priority,
  }));

describe('POST /api/v1/policies/apply', () => {
  it('creates, updates and deletes in one go, each new version with the change summary, and answers the new revision', async () => {
    const { tenant, agent, writes, deploys } = await tenantWithRules();
    const revision = await revisionOf(tenant);
    expect(revision).toMatch(REVISION);
    const response = await api.post(tenant.admin, '/api/v1/policies/apply', {
      revision,
      change_summary: SUMMARY,
      changes: [
        { action: 'update', policy_rule_id: writes.id, rule: { priority: 30, policy_effect: 'deny' } },
        { action: 'create', rule: policyBody(agent.id, { policy_name: 'Reads', operation: 'read' }) },
        { action: 'delete', policy_rule_id: deploys.id },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json();
    const now = await revisionOf(tenant);
    expect(now).not.toBe(revision);
    expect(data).toEqual({ revision: now, created: [expect.any(String)], updated: [writes.id], deleted: [deploys.id] });

    const updated = await versions(api, tenant, writes.id);
    expect(
      updated.map(({ version, change_summary, priority, policy_effect }) => ({ version, change_summary, priority, policy_effect })),
    ).toEqual([
      { version: 2, change_summary: SUMMARY, priority: 30, policy_effect: 'deny' },
      { version: 1, change_summary: 'Created', priority: 10, policy_effect: 'allow' },
    ]);
    const created = await versions(api, tenant, data.created[0]);
    expect(created.map(({ version, change_summary, policy_name }) => ({ version, change_summary, policy_name }))).toEqual([
      { version: 1, change_summary: SUMMARY, policy_name: 'Reads' },
    ]);
    const deleted = (await api.get(tenant.admin, `/api/v1/policies/${deploys.id}`)).json().data;
    expect([deleted.is_active, deleted.policy_version]).toEqual([false, 1]);
    // As the single-rule endpoints: one policy.updated per change, after the two creations of the setup.
    const events = (await policyEvents(t, tenant.tenantId)).filter(({ event }) => event === 'policy.updated');
    const changes = events.map(({ data }) => data as { change: string; policy: { id: string } });
    const pairs = changes.map(({ change, policy }) => [change, policy.id]);
    expect(pairs.slice(0, 2)).toEqual([
      ['created', writes.id],
      ['created', deploys.id],
    ]);
    // The apply's are one transaction's, recorded at one instant: in no particular order.
    expect(pairs.slice(2)).toHaveLength(3);
    expect(pairs.slice(2)).toEqual(
      expect.arrayContaining([
        ['updated', writes.id],
        ['created', data.created[0]],
        ['deleted', deploys.id],
      ]),
    );
    // The evaluate cache was dropped: the updated rule decides at once.
    const decided = await api.post(tenant.runtimeKey, '/api/v1/evaluate', {
      agent_id: agent.id,
      operation: 'write',
      target_integration: 'github',
      resource_scope: 'repo/app',
      data_classification: 'internal',
    });
    expect(decided.json().decision).toBe('deny');
  });

  it('refuses a stale revision with 409 and the current revision, writing nothing', async () => {
    const { tenant, writes } = await tenantWithRules();
    const stale = await revisionOf(tenant);
    expect((await api.patch(tenant.admin, `/api/v1/policies/${writes.id}`, { priority: 11 })).statusCode).toBe(200);
    const current = await revisionOf(tenant);
    const before = await rulesOf(tenant);
    expectErrorBody(
      await api.post(tenant.admin, '/api/v1/policies/apply', {
        revision: stale,
        change_summary: SUMMARY,
        changes: [{ action: 'update', policy_rule_id: writes.id, rule: { priority: 50 } }],
      }),
      409,
      {
        error: 'conflict',
        message: 'The rules changed since this revision: plan again against the current one',
        details: { revision: current },
      },
    );
    expect(await rulesOf(tenant)).toEqual(before);
    expect(await revisionOf(tenant)).toBe(current);
  });

  it('refuses an invalid third change with 400 naming it, writing none of the others', async () => {
    const { tenant, agent, writes, deploys } = await tenantWithRules();
    const revision = await revisionOf(tenant);
    const before = await rulesOf(tenant);
    const field = 'changes.2.rule.conditions';
    expectErrorBody(
      await api.post(tenant.admin, '/api/v1/policies/apply', {
        revision,
        change_summary: SUMMARY,
        changes: [
          { action: 'update', policy_rule_id: writes.id, rule: { priority: 50 } },
          { action: 'delete', policy_rule_id: deploys.id },
          { action: 'create', rule: policyBody(agent.id, { conditions: { nope: [1] } }) },
        ],
      }),
      400,
      {
        error: 'validation_error',
        message: `Invalid ${field}: ${field}: unknown operator "nope"`,
        details: { fields: [{ field, message: `${field}: unknown operator "nope"` }] },
      },
    );
    expect(await rulesOf(tenant)).toEqual(before);
    expect(await revisionOf(tenant)).toBe(revision);
  });

  it("answers 404 for another tenant's rule or agent, writing nothing", async () => {
    const { tenant, writes } = await tenantWithRules();
    const other = await tenantWithRules();
    const revision = await revisionOf(tenant);
    const before = await rulesOf(tenant);
    const apply = (changes: unknown[]) => api.post(tenant.admin, '/api/v1/policies/apply', { revision, change_summary: SUMMARY, changes });
    const update = { action: 'update', policy_rule_id: writes.id, rule: { priority: 50 } };
    expectErrorBody(await apply([update, { action: 'delete', policy_rule_id: other.writes.id }]), 404, notFound('Policy rule'));
    expectErrorBody(await apply([update, { action: 'create', rule: policyBody(other.agent.id) }]), 404, notFound('Agent'));
    expect(await rulesOf(tenant)).toEqual(before);
    expect(await rulesOf(other.tenant)).toHaveLength(2);
  });

  it('of concurrent applies against one revision, exactly one succeeds', async () => {
    const { tenant, writes } = await tenantWithRules();
    const revision = await revisionOf(tenant);
    const answers = await Promise.all(
      [21, 22, 23, 24].map((priority) =>
        api.post(tenant.admin, '/api/v1/policies/apply', {
          revision,
          change_summary: SUMMARY,
          changes: [{ action: 'update', policy_rule_id: writes.id, rule: { priority } }],
        }),
      ),
    );
    expect(answers.map(({ statusCode }) => statusCode).sort()).toEqual([200, 409, 409, 409]);
    const won = answers.findIndex(({ statusCode }) => statusCode === 200);
    expect((await versions(api, tenant, writes.id)).map(({ priority }) => priority)).toEqual([21 + won, 10]);
  });

  it('answers 400 for a body that is not a change set', async () => {
    const { tenant, writes } = await tenantWithRules();
    const revision = await revisionOf(tenant);
    const post = (body: Record<string, unknown>) => api.post(tenant.admin, '/api/v1/policies/apply', body);
    expect((await post({ revision, changes: [] })).statusCode).toBe(400);
    expect((await post({ revision: 'v1', change_summary: SUMMARY, changes: [] })).statusCode).toBe(400);
    expect((await post({ revision, change_summary: SUMMARY, changes: [{ action: 'rename', policy_rule_id: writes.id }] })).statusCode).toBe(
      400,
    );
  });
});

describe('GET /api/v1/policies/revision', () => {
  it('changes with every create, update and delete, and only then', async () => {
    const { tenant, agent, writes } = await tenantWithRules();
    const seen = [await revisionOf(tenant)];
    expect(await revisionOf(tenant)).toBe(seen[0]);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_name: 'Another' });
    seen.push(await revisionOf(tenant));
    expect((await api.patch(tenant.admin, `/api/v1/policies/${writes.id}`, { priority: 12 })).statusCode).toBe(200);
    seen.push(await revisionOf(tenant));
    expect((await api.delete(tenant.admin, `/api/v1/policies/${writes.id}`)).statusCode).toBe(200);
    seen.push(await revisionOf(tenant));
    // Deleting a deleted rule changes nothing.
    expect((await api.delete(tenant.admin, `/api/v1/policies/${writes.id}`)).statusCode).toBe(200);
    expect(await revisionOf(tenant)).toBe(seen[3]);
    expect(new Set(seen).size).toBe(4);
    // Another tenant's revision is its own.
    expect(await revisionOf((await tenantWithRules()).tenant)).not.toBe(seen[3]);
  });
});
