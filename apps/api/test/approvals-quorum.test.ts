import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ISO_TIME } from './assertions.js';
import { client } from './client.js';
import { action } from './fixtures.js';
import { type Credential, keyWithScopes, sessionWithRole, type Tenant, useTestApp } from './harness.js';
import {
  APPROVAL_REQUESTED_EVENTS,
  type Approval,
  approvalEffectsOf,
  approvalRequired,
  approvalSnapshot,
  decide,
  requestApproval,
  traceOf,
  verification,
} from './scenarios.js';

const t = useTestApp();

type Answer = LightMyRequestResponse;

/** A refusal in the spec's error body, with its status and code. */
function expectRefusal(response: Answer, status: number, error: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject({ error, status, message: expect.any(String), request_id: expect.any(String) });
}

/** A 400 whose every named field is `field`. */
function expectInvalid(response: Answer, field: string) {
  expectRefusal(response, 400, 'validation_error');
  const fields = response.json().details.fields.map((f: { field: string }) => f.field);
  expect(new Set(fields)).toEqual(new Set([field]));
}
const api = client(t);

interface Reviewer {
  credential: Credential;
  name: string;
  email: string;
  /** How the trail names them: `Name <email>`. */
  principal: string;
}

async function reviewer(tenant: Tenant, role: 'reviewer' | 'admin' = 'reviewer'): Promise<Reviewer> {
  const session = await sessionWithRole(t.app, tenant, role);
  return {
    credential: { cookie: session.cookie },
    name: session.name,
    email: session.email,
    principal: `${session.name} <${session.email}>`,
  };
}

/** A tenant whose rule needs `n` approvers, with a pending request and the reviewers to decide it. */
async function quorumOf(n: number, reviewers = 2) {
  const { tenant, agent } = await approvalRequired(t.app, { approvals_required: n });
  const pending = await requestApproval(t.app, tenant, agent.id);
  const people = [];
  for (let i = 0; i < reviewers; i += 1) people.push(await reviewer(tenant));
  return { tenant, agent, pending, people };
}

const vote = (by: Reviewer, decision: 'approve' | 'deny', extra: Record<string, unknown> = {}) => ({
  decision,
  principal: by.principal,
  on_behalf_of: null,
  approver_name: by.name,
  decision_note: null,
  at: ISO_TIME,
  ...extra,
});

const cast = (by: Reviewer, approval: Approval, verdict: 'approve' | 'deny', body: Record<string, unknown> = {}) =>
  decide(t.app, by.credential, approval.id, verdict, { approver_name: by.name, ...body });

describe('a rule that needs two approvers', () => {
  it('stays pending after one approval, is approved by a second person, and records each vote', async () => {
    const { tenant, pending, people } = await quorumOf(2);
    const [ada, bob] = people as [Reviewer, Reviewer];
    expect(pending).toMatchObject({ status: 'pending', approvals_required: 2, votes: [] });

    const first = await cast(ada, pending, 'approve', { decision_note: 'Looks right' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toEqual({
      ...pending,
      votes: [vote(ada, 'approve', { decision_note: 'Looks right' })],
    });
    const status = (await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json();
    expect(status).toMatchObject({ status: 'pending', decided_at: null, approver_name: null, grant: null });
    const halfway = await traceOf(t.app, tenant, pending.trace_id);
    expect(halfway.final_outcome).toBe('in_progress');
    expect(halfway.events.at(-1)).toMatchObject({
      event_type: 'approval_granted',
      actor_type: 'human_reviewer',
      actor_name: ada.principal,
      status: 'pending',
      description: `Approved by ${ada.principal} (1 of 2 approvals): Looks right`,
      approval_request_id: pending.id,
      metadata: { approver_name: ada.name, decision_note: 'Looks right', approvals: 1, approvals_required: 2 },
    });
    expect((await approvalEffectsOf(t, tenant.tenantId)).webhooks).toEqual([]);

    const second = await cast(bob, pending, 'approve');
    expect(second.statusCode, second.body).toBe(200);
    const decided = second.json().data;
    expect(decided).toEqual({
      ...pending,
      status: 'approved',
      decided_at: ISO_TIME,
      approver_name: bob.name,
      decision_note: null,
      votes: [vote(ada, 'approve', { decision_note: 'Looks right' }), vote(bob, 'approve')],
    });
    expect(decided.votes[1].at).toBe(decided.decided_at);

    const trace = await traceOf(t.app, tenant, pending.trace_id);
    expect(trace.events.map((e) => e.event_type)).toEqual([
      ...APPROVAL_REQUESTED_EVENTS,
      'approval_granted',
      'approval_granted',
      'operation_allowed',
      'trace_closed',
    ]);
    expect(trace.events[6]).toMatchObject({
      actor_name: bob.principal,
      status: 'approved',
      description: `Approved by ${bob.principal} (2 of 2 approvals)`,
    });
    expect(trace).toMatchObject({ final_outcome: 'completed_with_approval', completed_at: decided.decided_at });
    expect(await verification(t.app, tenant, pending.trace_id)).toMatchObject({ valid: true, event_count: 9 });
    const { webhooks } = await approvalEffectsOf(t, tenant.tenantId);
    expect(webhooks).toEqual([expect.objectContaining({ event: 'approval.approved', data: { approval: decided } })]);
    const detail = (await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}`)).json().data;
    expect(detail).toMatchObject({ approvals_required: 2, votes: decided.votes, grant: expect.any(String) });
    // The grant is issued by the deciding vote, and names its caster.
    const claims = JSON.parse(Buffer.from(detail.grant.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ approval_id: pending.id, decision: 'approved', approved_by: bob.principal });
  });

  it('refuses a second vote by one person, and votes by whoever created the agent or asked, recording nothing', async () => {
    const { tenant, pending, people } = await quorumOf(2, 1);
    const [ada] = people as [Reviewer];
    expect((await cast(ada, pending, 'approve')).statusCode).toBe(200);
    const before = await approvalSnapshot(t, tenant, pending);

    for (const verdict of ['approve', 'deny'] as const) {
      const again = await cast(ada, pending, verdict);
      expectRefusal(again, 409, 'conflict');
      expect(again.json().message).toBe('this person has already voted on this request');
    }
    // The tenant's first admin created the agent.
    for (const verdict of ['approve', 'deny'] as const) {
      const refused = await decide(t.app, tenant.admin, pending.id, verdict, { approver_name: 'Creator' });
      expectRefusal(refused, 409, 'conflict');
      expect(refused.json().message).toBe('the principal that created the agent or asked for this action cannot vote on it');
    }
    expect(await approvalSnapshot(t, tenant, pending)).toEqual(before);
    const current = (await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}`)).json().data;
    expect(current).toMatchObject({ status: 'pending', votes: [vote(ada, 'approve')] });

    // A key that may both evaluate and decide asks, then tries to deny its own request.
    const asker = await keyWithScopes(t.app, tenant, ['evaluate', 'approvals:write']);
    const asked = await api.post({ apiKey: asker.apiKey }, '/api/v1/evaluate', action(pending.agent_id));
    const askedId = asked.json().approval_request_id;
    const refused = await decide(t.app, { apiKey: asker.apiKey }, askedId, 'deny', { approver_name: 'Asker' });
    expectRefusal(refused, 409, 'conflict');
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${askedId}`)).json().data).toMatchObject({ status: 'pending', votes: [] });
  });

  it('takes no approval from an API key, which is no person, but lets one deny', async () => {
    const { tenant, pending } = await quorumOf(2, 0);
    const key = await keyWithScopes(t.app, tenant, ['approvals:write']);
    const refused = await decide(t.app, { apiKey: key.apiKey }, pending.id, 'approve', { approver_name: 'Bot' });
    expectRefusal(refused, 403, 'forbidden');
    expect(refused.json().details).toEqual({ required_role: 'reviewer', role: null });

    const denied = await decide(t.app, { apiKey: key.apiKey }, pending.id, 'deny', { approver_name: 'Bot' });
    expect(denied.statusCode, denied.body).toBe(200);
    expect(denied.json().data).toMatchObject({
      status: 'denied',
      votes: [{ decision: 'deny', principal: `api-key:${key.name} (${key.prefix})`, approver_name: 'Bot', on_behalf_of: null }],
    });
  });

  it('is denied by any one deny, after an approval', async () => {
    const { tenant, pending, people } = await quorumOf(3, 2);
    const [ada, bob] = people as [Reviewer, Reviewer];
    expect((await cast(ada, pending, 'approve')).statusCode).toBe(200);
    const denied = await cast(bob, pending, 'deny', { decision_note: 'Not today' });
    expect(denied.statusCode, denied.body).toBe(200);
    expect(denied.json().data).toMatchObject({
      status: 'denied',
      approver_name: bob.name,
      decision_note: 'Not today',
      votes: [vote(ada, 'approve'), vote(bob, 'deny', { decision_note: 'Not today' })],
    });
    const trace = await traceOf(t.app, tenant, pending.trace_id);
    expect(trace.events.slice(5).map((e) => [e.event_type, e.status])).toEqual([
      ['approval_granted', 'pending'],
      ['approval_denied', 'denied'],
      ['operation_denied', 'denied'],
      ['trace_closed', 'denied'],
    ]);
    expect(trace.final_outcome).toBe('denied');
    expect(await verification(t.app, tenant, pending.trace_id)).toMatchObject({ valid: true });
  });

  it('gives one outcome to 50 concurrent votes of 10 people, with one webhook', async () => {
    const { tenant, pending, people } = await quorumOf(2, 10);
    const votes = Array.from({ length: 50 }, (_, i) => cast(people[i % 10]!, pending, i % 7 === 3 ? 'deny' : 'approve'));
    const answers = await Promise.all(votes);
    expect(answers.map((a) => a.statusCode).filter((s) => s !== 200 && s !== 409)).toEqual([]);
    const final = (await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}`)).json().data;
    expect(['approved', 'denied']).toContain(final.status);
    // Accepted votes are exactly the ones recorded: approvals until a deny or the second approver.
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(final.votes.length);
    const decisions = final.votes.map((v: { decision: string }) => v.decision);
    if (final.status === 'approved') expect(decisions).toEqual(['approve', 'approve']);
    else expect(decisions.at(-1)).toBe('deny');
    expect(decisions.slice(0, -1).every((d: string) => d === 'approve')).toBe(true);
    expect(new Set(final.votes.map((v: { principal: string }) => v.principal)).size).toBe(final.votes.length);
    const { webhooks } = await approvalEffectsOf(t, tenant.tenantId);
    expect(webhooks.map((w) => w.event)).toEqual([final.status === 'approved' ? 'approval.approved' : 'approval.denied']);
    expect(await verification(t.app, tenant, pending.trace_id)).toMatchObject({ valid: true, event_count: 5 + final.votes.length + 2 });
  });
});

describe('a rule that needs one approver, as the spec has it', () => {
  it('decides on the first vote, records it, and still lets the agent creator decide', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    expect(pending).toMatchObject({ approvals_required: 1, votes: [] });
    const decided = await decide(t.app, tenant.admin, pending.id, 'approve', { approver_name: 'Owner' });
    expect(decided.statusCode, decided.body).toBe(200);
    expect(decided.json().data).toMatchObject({
      status: 'approved',
      approver_name: 'Owner',
      votes: [{ decision: 'approve', approver_name: 'Owner', on_behalf_of: null, decision_note: null, at: decided.json().data.decided_at }],
    });
    const trace = await traceOf(t.app, tenant, pending.trace_id);
    expect(trace.events[5]?.description).toMatch(/^Approved by .+ <.+>$/);
    expect(trace.events[5]?.metadata).toEqual({ approver_name: 'Owner', decision_note: null });
  });
});

describe('approvals_required on rules', () => {
  it.each([0, 6, 1.5, '2', null])('rejects %j with 400 naming the field', async (value) => {
    const { tenant, agent } = await approvalRequired(t.app);
    const response = await api.post(tenant.admin, '/api/v1/policies', {
      agent_id: agent.id,
      policy_name: 'Two people',
      target_integration: 'github',
      operation: 'write',
      resource_scope: 'repo/*',
      data_classification: 'internal',
      policy_effect: 'approval_required',
      rationale: 'Two people look at every write',
      priority: 10,
      conditions: null,
      max_session_ttl: null,
      modified_by: 'Admin',
      modified_at: '2026-01-01T00:00:00.000Z',
      approvals_required: value,
    });
    expectInvalid(response, 'approvals_required');
  });

  it('defaults to 1, is versioned, and a PATCH of another field keeps it', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const rules = (await api.get(tenant.admin, `/api/v1/policies?agent_id=${agent.id}`)).json().data;
    expect(rules[0].approvals_required).toBe(1);
    const raised = await api.patch(tenant.admin, `/api/v1/policies/${rules[0].id}`, { approvals_required: 3 });
    expect(raised.json().data).toMatchObject({ approvals_required: 3, policy_version: 2 });
    const renamed = await api.patch(tenant.admin, `/api/v1/policies/${rules[0].id}`, { policy_name: 'Three people' });
    expect(renamed.json().data).toMatchObject({ approvals_required: 3, policy_version: 3 });
    const versions = (await api.get(tenant.admin, `/api/v1/policies/${rules[0].id}/versions`)).json().data;
    expect(versions.map((v: { approvals_required: number; change_summary: string }) => [v.approvals_required, v.change_summary])).toEqual([
      [3, 'Changed policy_name'],
      [3, 'Changed approvals_required'],
      [1, 'Created'],
    ]);
    const pending = await requestApproval(t.app, tenant, agent.id);
    expect(pending.approvals_required).toBe(3);
  });
});

describe('delegated votes', () => {
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

  it('lets a delegate vote for the reviewer who delegated, naming both, once per person', async () => {
    const { tenant, pending, people } = await quorumOf(2, 3);
    const [ada, bob, cy] = people as [Reviewer, Reviewer, Reviewer];
    const created = await api.post(ada.credential, '/api/v1/delegations', {
      delegate_email: bob.email,
      ends_at: inDays(7),
      reason: 'Holiday',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data).toEqual({
      id: expect.any(String),
      delegator: { id: expect.any(String), name: ada.name, email: ada.email },
      delegate: { id: expect.any(String), name: bob.name, email: bob.email },
      starts_at: ISO_TIME,
      ends_at: expect.any(String),
      reason: 'Holiday',
      created_at: ISO_TIME,
      revoked_at: null,
    });

    const forAda = await cast(bob, pending, 'approve', { on_behalf_of: ada.email.toUpperCase() });
    expect(forAda.statusCode, forAda.body).toBe(200);
    expect(forAda.json().data.votes).toEqual([vote(bob, 'approve', { on_behalf_of: ada.principal })]);
    // Bob has voted (for Ada), and Ada's vote is cast: neither may vote again.
    expectRefusal(await cast(bob, pending, 'approve'), 409, 'conflict');
    expectRefusal(await cast(ada, pending, 'approve'), 409, 'conflict');
    const trace = await traceOf(t.app, tenant, pending.trace_id);
    expect(trace.events.at(-1)).toMatchObject({
      actor_name: bob.principal,
      description: `Approved by ${bob.principal} for ${ada.principal} (1 of 2 approvals)`,
      metadata: { on_behalf_of: ada.principal },
    });

    const done = await cast(cy, pending, 'approve');
    expect(done.json().data).toMatchObject({ status: 'approved', approver_name: cy.name });
  });

  it('refuses a vote for someone who has not delegated, or whose delegation was revoked', async () => {
    const { tenant, pending, people } = await quorumOf(2, 2);
    const [ada, bob] = people as [Reviewer, Reviewer];
    const refused = await cast(bob, pending, 'approve', { on_behalf_of: ada.email });
    expectRefusal(refused, 403, 'forbidden');
    expect(refused.json().message).toBe(`no delegation from ${ada.email} to you is in force`);

    const { id } = (await api.post(ada.credential, '/api/v1/delegations', { delegate_email: bob.email, ends_at: inDays(1) })).json().data;
    const stranger = await reviewer(tenant);
    expectRefusal(await api.delete(stranger.credential, `/api/v1/delegations/${id}`), 403, 'forbidden');
    const revoked = await api.delete(ada.credential, `/api/v1/delegations/${id}`);
    expect(revoked.json().data.revoked_at).toEqual(ISO_TIME);
    expectRefusal(await cast(bob, pending, 'approve', { on_behalf_of: ada.email }), 403, 'forbidden');
    expect((await api.get(ada.credential, '/api/v1/delegations?current=true')).json().data).toEqual([]);
    expect((await api.get(ada.credential, '/api/v1/delegations')).json().data.map((d: { id: string }) => d.id)).toEqual([id]);
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}`)).json().data.votes).toEqual([]);
  });

  it('validates who and when, takes no key, and keeps tenants apart', async () => {
    const { tenant, people } = await quorumOf(2, 1);
    const [ada] = people as [Reviewer];
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const other = await approvalRequired(t.app);
    const stranger = await reviewer(other.tenant);
    for (const [body, field] of [
      [{ delegate_email: ada.email, ends_at: inDays(1) }, 'delegate_email'],
      [{ delegate_email: viewer.email, ends_at: inDays(1) }, 'delegate_email'],
      [{ delegate_email: stranger.email, ends_at: inDays(1) }, 'delegate_email'],
      [{ delegate_email: 'nobody@example.com', ends_at: inDays(-1) }, 'ends_at'],
      [{ delegate_email: stranger.email, ends_at: inDays(91) }, 'ends_at'],
      [{ delegate_email: 'not-an-email', ends_at: inDays(1) }, 'delegate_email'],
    ] as const) {
      expectInvalid(await api.post(ada.credential, '/api/v1/delegations', body), field);
    }
    const key = await keyWithScopes(t.app, tenant, ['admin']);
    expectRefusal(
      await api.post({ apiKey: key.apiKey }, '/api/v1/delegations', { delegate_email: stranger.email, ends_at: inDays(1) }),
      403,
      'forbidden',
    );
    expectRefusal(await api.get({ cookie: viewer.cookie }, '/api/v1/delegations'), 403, 'forbidden');
    const mine = (await api.post(ada.credential, '/api/v1/delegations', { delegate_email: tenant.email, ends_at: inDays(1) })).json().data;
    expectRefusal(await api.delete(stranger.credential, `/api/v1/delegations/${mine.id}`), 404, 'not_found');
    expect((await api.get(stranger.credential, '/api/v1/delegations')).json().data).toEqual([]);
  });
});
