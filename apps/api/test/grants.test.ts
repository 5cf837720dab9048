import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionDigest, type GrantJwks, GrantVerificationError, verifyGrant, verifyTraceExport } from '../../../packages/sdk/src/index.js';
import { expectErrorBody, ISO_TIME } from './assertions.js';
import { client } from './client.js';
import { action, createPolicy } from './fixtures.js';
import { keyWithScopes, sessionWithRole, signupTenant, type Tenant, TestClock, useTestApp } from './harness.js';
import {
  approvalRequired,
  decide,
  decision,
  evaluation,
  requestApproval,
  succeeded,
  tenantWithPolicy,
  traceOf,
  verification,
} from './scenarios.js';

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

const jwksOf = async (tenantId: string): Promise<GrantJwks> => {
  const response = await api.get(null, `/.well-known/jwks.json?tenant_id=${tenantId}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};

const detailOf = async (tenant: Tenant, approvalId: string) =>
  (await api.get(tenant.runtimeKey, `/api/v1/approvals/${approvalId}`)).json().data as Record<string, unknown> & {
    grant: string | null;
    grant_expires_at: string | null;
    grant_redeemed_at: string | null;
  };

const statusOf = async (tenant: Tenant, approvalId: string, query = '') =>
  (await api.get(tenant.runtimeKey, `/api/v1/approvals/${approvalId}/status${query}`)).json() as Record<string, unknown> & {
    grant: string | null;
  };

/** A JWS's header or payload, read without verifying. */
const part = (grant: string, index: 0 | 1) => JSON.parse(Buffer.from(grant.split('.')[index]!, 'base64url').toString('utf8'));

/** A fresh tenant whose request for the fixture action (with `context`) an admin approved. */
async function approvedRequest(rule: Record<string, unknown> = {}, context?: Record<string, unknown>) {
  const { tenant, agent } = await approvalRequired(t.app, rule);
  const approval = await requestApproval(t.app, tenant, agent.id, context);
  await decision(t.app, tenant, approval.id, 'approve', { approver_name: 'Ada' });
  const detail = await detailOf(tenant, approval.id);
  expect(detail.grant).toEqual(expect.any(String));
  return { tenant, agent, approval, grant: detail.grant!, detail, action: { ...action(agent.id), ...(context ? { context } : {}) } };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GrantVerificationError);
  return (error as GrantVerificationError).reason;
}

describe('issuing a grant on approval', () => {
  it('puts the signed grant on the detail and the status poll, verifiable offline with the JWKS', async () => {
    const context = { ticket: 'OPS-7', amount: 120 };
    const { tenant, agent, approval, grant, detail, action: approved } = await approvedRequest({}, context);
    const header = part(grant, 0);
    const claims = part(grant, 1);
    expect(header).toEqual({ alg: 'EdDSA', typ: 'agov-grant+jwt', kid: expect.any(String) });
    expect(claims).toEqual({
      iss: t.runtime.config.publicUrl,
      sub: agent.id,
      tid: tenant.tenantId,
      trace_id: approval.trace_id,
      approval_id: approval.id,
      action_digest: approval.action_digest,
      decision: 'approved',
      approved_by: `Ada Admin <${tenant.email}>`,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: expect.any(Number),
      exp: claims.iat + 300,
    });
    expect(detail).toMatchObject({ grant_expires_at: new Date(claims.exp * 1000).toISOString(), grant_redeemed_at: null });
    expect((await statusOf(tenant, approval.id)).grant).toBe(grant);
    expect((await statusOf(tenant, approval.id, '?wait=1')).grant).toBe(grant);

    const response = await api.get(null, `/.well-known/jwks.json?tenant_id=${tenant.tenantId}`);
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    const jwks = response.json() as GrantJwks;
    expect(jwks.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: header.kid, alg: 'EdDSA', use: 'sig' }]);
    const verified = await verifyGrant(grant, approved, jwks, { tenantId: tenant.tenantId, issuer: t.runtime.config.publicUrl });
    expect(verified).toEqual(claims);
  });

  it("lasts the matching rule's max_session_ttl when it has one", async () => {
    const { grant, detail } = await approvedRequest({ max_session_ttl: 3600 });
    const claims = part(grant, 1);
    expect(claims.exp - claims.iat).toBe(3600);
    expect(detail.grant_expires_at).toBe(new Date(claims.exp * 1000).toISOString());
  });

  it('leaves grant null on a pending and on a denied request, and off the list and the decision answer', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const pending = await requestApproval(t.app, tenant, agent.id);
    expect(pending).not.toHaveProperty('grant');
    expect(await detailOf(tenant, pending.id)).toMatchObject({ grant: null, grant_expires_at: null, grant_redeemed_at: null });
    expect((await statusOf(tenant, pending.id)).grant).toBeNull();

    const denied = await decision(t.app, tenant, pending.id, 'deny', { approver_name: 'Ada' });
    expect(denied).not.toHaveProperty('grant');
    expect(await detailOf(tenant, pending.id)).toMatchObject({ status: 'denied', grant: null, grant_expires_at: null });
    expect((await statusOf(tenant, pending.id)).grant).toBeNull();

    const approved = await requestApproval(t.app, tenant, agent.id);
    const answer = await decision(t.app, tenant, approved.id, 'approve', { approver_name: 'Ada' });
    expect(answer).not.toHaveProperty('grant');
    const listed = (await api.get(tenant.runtimeKey, '/api/v1/approvals?status=approved')).json().data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('grant');
  });

  it("makes one key for a tenant's concurrent first approvals", async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const approvals = [];
    for (let i = 0; i < 5; i++) approvals.push(await requestApproval(t.app, tenant, agent.id, { i }));
    await Promise.all(approvals.map((approval) => decision(t.app, tenant, approval.id, 'approve', { approver_name: 'Ada' })));
    const kids = new Set(await Promise.all(approvals.map(async (approval) => part((await detailOf(tenant, approval.id)).grant!, 0).kid)));
    expect(kids.size).toBe(1);
    expect((await jwksOf(tenant.tenantId)).keys.map((key) => key.kid)).toEqual([...kids]);
  });
});

describe('verifyGrant refuses', () => {
  it('a tampered grant, an expired one, and one for another action', async () => {
    const { tenant, grant, action: approved } = await approvedRequest({}, { ticket: 'OPS-8' });
    const jwks = await jwksOf(tenant.tenantId);
    const [header, payload, signature] = grant.split('.') as [string, string, string];
    const middle = Math.floor(payload.length / 2);
    const flipped = payload[middle] === 'A' ? 'B' : 'A';
    const tampered = `${header}.${payload.slice(0, middle)}${flipped}${payload.slice(middle + 1)}.${signature}`;
    expect(await refusal(verifyGrant(tampered, approved, jwks))).toBe('signature');
    expect(await refusal(verifyGrant('not-a-grant', approved, jwks))).toBe('malformed');

    const { exp } = part(grant, 1);
    const afterExpiry = new Date((exp + 1) * 1000);
    expect(await refusal(verifyGrant(grant, approved, jwks, { now: afterExpiry }))).toBe('expired');
    await expect(verifyGrant(grant, approved, jwks, { now: afterExpiry, clockTolerance: 5 })).resolves.toMatchObject({ exp });

    expect(await refusal(verifyGrant(grant, { ...approved, resource_scope: 'repo/other' }, jwks))).toBe('action_mismatch');
    expect(await refusal(verifyGrant(grant, { ...approved, context: { ticket: 'OPS-9' } }, jwks))).toBe('action_mismatch');
    expect(await refusal(verifyGrant(grant, approved, jwks, { issuer: 'https://elsewhere.example' }))).toBe('issuer_mismatch');
  });

  it("another tenant's grant, against this tenant's keys and its expectation", async () => {
    const ours = await approvedRequest();
    const theirs = await approvedRequest();
    expect(await refusal(verifyGrant(theirs.grant, theirs.action, await jwksOf(ours.tenant.tenantId)))).toBe('signature');
    const theirKeys = await jwksOf(theirs.tenant.tenantId);
    expect(await refusal(verifyGrant(theirs.grant, theirs.action, theirKeys, { tenantId: ours.tenant.tenantId }))).toBe('tenant_mismatch');
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('answers an empty set for a tenant without keys and for an unknown one', async () => {
    const tenant = await signupTenant(t.app);
    expect(await jwksOf(tenant.tenantId)).toEqual({ keys: [] });
    expect(await jwksOf('00000000-0000-4000-8000-000000000000')).toEqual({ keys: [] });
  });

  it.each(['', '?tenant_id=nope'])('refuses %s with 400', async (query) => {
    const response = await api.get(null, `/.well-known/jwks.json${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: 'validation_error',
      status: 400,
      message: expect.any(String),
      request_id: expect.any(String),
    });
  });
});

describe('POST /api/v1/grants/:jti/redeem', () => {
  it('redeems once of 20 concurrent tries, records it in the trace, and the chain still verifies', async () => {
    const { tenant, approval, grant } = await approvedRequest();
    const { jti } = part(grant, 1);
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.post(tenant.runtimeKey, `/api/v1/grants/${jti}/redeem`)));
    const won = answers.filter((answer) => answer.statusCode === 200);
    expect(won).toHaveLength(1);
    const redeemedAt = won[0]!.json().data.redeemed_at;
    expect(won[0]!.json()).toEqual({ data: { jti, approval_id: approval.id, trace_id: approval.trace_id, redeemed_at: ISO_TIME } });
    for (const lost of answers.filter((answer) => answer.statusCode !== 200)) {
      expectErrorBody(lost, 409, {
        error: 'conflict',
        message: 'grant has already been redeemed',
        details: { redeemed_at: redeemedAt },
        trace_id: approval.trace_id,
      });
    }
    expect((await detailOf(tenant, approval.id)).grant_redeemed_at).toBe(redeemedAt);

    const trace = await traceOf(t.app, tenant, approval.trace_id);
    expect(trace.final_outcome).toBe('completed_with_approval');
    const redeemed = trace.events.filter((event) => event.event_type === 'grant_redeemed');
    expect(redeemed).toEqual([
      expect.objectContaining({
        actor_type: 'agent',
        actor_name: expect.stringMatching(/^api-key:.+ \(.+\)$/),
        approval_request_id: approval.id,
        metadata: { jti },
      }),
    ]);
    expect(trace.events.at(-1)!.event_type).toBe('grant_redeemed');
    expect(await verification(t.app, tenant, approval.trace_id)).toMatchObject({ valid: true });
    expect(await verifyTraceExport(trace)).toMatchObject({ valid: true });
    // The agent still reports what happened.
    await succeeded(t.app, tenant, approval.trace_id);
    expect(await verification(t.app, tenant, approval.trace_id)).toMatchObject({ valid: true });
  });

  it('takes any credential of the tenant, and gives the first answer again to a retry with the same Idempotency-Key', async () => {
    const { tenant, approval, grant } = await approvedRequest();
    const { jti } = part(grant, 1);
    const viewer = await sessionWithRole(t.app, tenant, 'viewer');
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/grants/${jti}/redeem`,
        headers: { cookie: viewer.cookie, 'x-requested-with': 'XMLHttpRequest', 'idempotency-key': `redeem-${jti}` },
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    const again = await send();
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const trace = await traceOf(t.app, tenant, approval.trace_id);
    expect(trace.events.filter((event) => event.event_type === 'grant_redeemed')).toEqual([
      expect.objectContaining({ actor_name: `viewer user <${viewer.email}>` }),
    ]);
  });

  it('refuses an expired grant with 409', async () => {
    const { tenant, approval, grant, detail } = await approvedRequest();
    clock.advance(301_000);
    const response = await api.post(tenant.runtimeKey, `/api/v1/grants/${part(grant, 1).jti}/redeem`);
    expectErrorBody(response, 409, {
      error: 'conflict',
      message: 'grant has expired',
      details: { expires_at: detail.grant_expires_at! },
      trace_id: approval.trace_id,
    });
  });

  it("answers 404 for an unknown grant and for another tenant's", async () => {
    const theirs = await approvedRequest();
    const ours = await signupTenant(t.app);
    const admin = await keyWithScopes(t.app, ours, ['admin']);
    for (const jti of [part(theirs.grant, 1).jti, '00000000-0000-4000-8000-000000000000']) {
      expectErrorBody(await api.post(admin, `/api/v1/grants/${jti}/redeem`), 404, { error: 'not_found', message: 'Grant not found' });
    }
    expect((await detailOf(theirs.tenant, theirs.approval.id)).grant_redeemed_at).toBeNull();
  });
});

describe('POST /api/v1/settings/grant-keys/rotate', () => {
  it('signs with the new key at once and keeps the old one published until its last grant expires', async () => {
    const { tenant, agent, grant: old, action: approved } = await approvedRequest();
    const oldKid = part(old, 0).kid;
    const rotated = await api.post(tenant.admin, '/api/v1/settings/grant-keys/rotate');
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { kid } = rotated.json().data;
    expect(rotated.json()).toEqual({ data: { kid: expect.any(String), created_at: ISO_TIME } });
    expect(kid).not.toBe(oldKid);

    const during = await jwksOf(tenant.tenantId);
    expect(during.keys.map((key) => key.kid)).toEqual([kid, oldKid]);
    await expect(verifyGrant(old, approved, during)).resolves.toMatchObject({ tid: tenant.tenantId });

    const next = await requestApproval(t.app, tenant, agent.id);
    await decision(t.app, tenant, next.id, 'approve', { approver_name: 'Ada' });
    const fresh = (await detailOf(tenant, next.id)).grant!;
    expect(part(fresh, 0).kid).toBe(kid);

    clock.advance(301_000);
    expect((await jwksOf(tenant.tenantId)).keys.map((key) => key.kid)).toEqual([kid]);
  });

  it("makes a tenant's first key when it has none, and is refused to a reviewer", async () => {
    const tenant = await signupTenant(t.app);
    const reviewer = await sessionWithRole(t.app, tenant, 'reviewer');
    expect((await api.post(reviewer, '/api/v1/settings/grant-keys/rotate')).statusCode).toBe(403);
    const rotated = await api.post(tenant.admin, '/api/v1/settings/grant-keys/rotate');
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect((await jwksOf(tenant.tenantId)).keys.map((key) => key.kid)).toEqual([rotated.json().data.kid]);
  });
});

/** A fresh tenant whose agent a rule allows the fixture action, with grants on allow turned on. */
async function allowingWithGrants(rule: Record<string, unknown> = {}) {
  const allowing = await tenantWithPolicy(t.app, 'allow', rule);
  const saved = await api.put(allowing.tenant.admin, '/api/v1/settings/grants', { issue_on_allow: true });
  expect(saved.statusCode, saved.body).toBe(200);
  return allowing;
}

describe('grants on allow', () => {
  it('are off for a new tenant: an allow carries no grant', async () => {
    const { tenant, agent } = await tenantWithPolicy(t.app, 'allow');
    expect((await api.get(tenant.admin, '/api/v1/settings/grants')).json()).toEqual({ data: { issue_on_allow: false } });
    const allowed = await evaluation(t.app, tenant, action(agent.id));
    expect(allowed.decision).toBe('allow');
    expect(allowed).not.toHaveProperty('grant');
    expect(await jwksOf(tenant.tenantId)).toEqual({ keys: [] });
  });

  it('once on, sign every allow: a grant for exactly that action, verifiable offline', async () => {
    const { tenant, agent, rule } = await allowingWithGrants();
    expect((await api.get(tenant.runtimeKey, '/api/v1/settings/grants')).statusCode).toBe(403);
    expect((await api.get(tenant.admin, '/api/v1/settings/grants')).json()).toEqual({ data: { issue_on_allow: true } });
    const allowedAction = { ...action(agent.id), context: { ticket: 'OPS-11' } };
    const allowed = await evaluation(t.app, tenant, allowedAction);
    expect(allowed).toMatchObject({ decision: 'allow', approval_request_id: null, policy_rule_id: rule.id, grant: expect.any(String) });
    const claims = part(allowed.grant!, 1);
    expect(part(allowed.grant!, 0)).toEqual({ alg: 'EdDSA', typ: 'agov-grant+jwt', kid: expect.any(String) });
    expect(claims).toEqual({
      iss: t.runtime.config.publicUrl,
      sub: agent.id,
      tid: tenant.tenantId,
      trace_id: allowed.trace_id,
      approval_id: null,
      action_digest: await actionDigest(allowedAction),
      decision: 'allowed',
      policy_rule_id: rule.id,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: expect.any(Number),
      exp: claims.iat + 300,
    });
    const jwks = await jwksOf(tenant.tenantId);
    await expect(verifyGrant(allowed.grant!, allowedAction, jwks, { tenantId: tenant.tenantId })).resolves.toEqual(claims);
    await expect(verifyGrant(allowed.grant!, allowedAction, jwks, { decision: 'allowed' })).resolves.toEqual(claims);
    expect(await refusal(verifyGrant(allowed.grant!, allowedAction, jwks, { decision: 'approved' }))).toBe('decision_mismatch');
    expect(await refusal(verifyGrant(allowed.grant!, { ...allowedAction, context: {} }, jwks))).toBe('action_mismatch');
  });

  it("last the allowing rule's max_session_ttl, and never come with a deny, an approval request or a dry run", async () => {
    const { tenant, agent } = await allowingWithGrants({ max_session_ttl: 900 });
    const allowed = await evaluation(t.app, tenant, action(agent.id));
    const claims = part(allowed.grant!, 1);
    expect(claims.exp - claims.iat).toBe(900);

    const denied = await evaluation(t.app, tenant, action(agent.id, { operation: 'delete' }));
    expect(denied.decision).toBe('deny');
    expect(denied).not.toHaveProperty('grant');
    await createPolicy(t.app, tenant.admin, agent.id, { operation: 'read', policy_effect: 'approval_required' });
    const pending = await evaluation(t.app, tenant, action(agent.id, { operation: 'read' }));
    expect(pending.decision).toBe('approval_required');
    expect(pending).not.toHaveProperty('grant');
    const dryRun = await api.post(tenant.admin, '/api/v1/policies/test', action(agent.id));
    expect(dryRun.statusCode, dryRun.body).toBe(200);
    expect(dryRun.json()).not.toHaveProperty('grant');
  });

  it('stop at once when turned off again', async () => {
    const { tenant, agent } = await allowingWithGrants();
    expect((await evaluation(t.app, tenant, action(agent.id))).grant).toEqual(expect.any(String));
    const saved = await api.put(tenant.admin, '/api/v1/settings/grants', { issue_on_allow: false });
    expect(saved.json()).toEqual({ data: { issue_on_allow: false } });
    expect(await evaluation(t.app, tenant, action(agent.id))).not.toHaveProperty('grant');
  });

  it('redeem once, recorded in the trace of the allow', async () => {
    const { tenant, agent } = await allowingWithGrants();
    const allowed = await evaluation(t.app, tenant, action(agent.id));
    const { jti } = part(allowed.grant!, 1);
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.post(tenant.runtimeKey, `/api/v1/grants/${jti}/redeem`)));
    const won = answers.filter((answer) => answer.statusCode === 200);
    expect(won).toHaveLength(1);
    expect(won[0]!.json()).toEqual({ data: { jti, approval_id: null, trace_id: allowed.trace_id, redeemed_at: ISO_TIME } });
    expect(answers.filter((answer) => answer.statusCode === 409)).toHaveLength(9);
    const trace = await traceOf(t.app, tenant, allowed.trace_id);
    expect(trace.events.filter((event) => event.event_type === 'grant_redeemed')).toEqual([
      expect.objectContaining({ approval_request_id: null, metadata: { jti } }),
    ]);
    await succeeded(t.app, tenant, allowed.trace_id);
    expect(await verification(t.app, tenant, allowed.trace_id)).toMatchObject({ valid: true });
  });

  it('keep a rotated key published until the last grant it signed expires', async () => {
    const { tenant, agent } = await allowingWithGrants({ max_session_ttl: 600 });
    const first = await evaluation(t.app, tenant, action(agent.id));
    const oldKid = part(first.grant!, 0).kid;
    clock.advance(200_000);
    const second = await evaluation(t.app, tenant, action(agent.id));
    const rotated = await api.post(tenant.admin, '/api/v1/settings/grant-keys/rotate');
    const newKid = rotated.json().data.kid;
    const third = await evaluation(t.app, tenant, action(agent.id));
    expect(part(third.grant!, 0).kid).toBe(newKid);
    // The first grant expires 600 s after it was signed, the second 200 s later: the old key stays until then.
    clock.advance(401_000);
    const between = await jwksOf(tenant.tenantId);
    expect(between.keys.map((key) => key.kid)).toEqual([newKid, oldKid]);
    await expect(verifyGrant(second.grant!, action(agent.id), between)).resolves.toMatchObject({ decision: 'allowed' });
    clock.advance(200_000);
    expect((await jwksOf(tenant.tenantId)).keys.map((key) => key.kid)).toEqual([newKid]);
  });

  it.each([
    [{}, 'issue_on_allow', 'is required'],
    [{ issue_on_allow: 'yes' }, 'issue_on_allow', 'must be boolean'],
    [{ issue_on_allow: true, extra: 1 }, 'extra', 'is not allowed'],
  ])('refuse the body %j with 400, changing nothing', async (body, field, message) => {
    const { tenant } = await tenantWithPolicy(t.app, 'allow');
    const response = await api.put(tenant.admin, '/api/v1/settings/grants', body);
    expectErrorBody(response, 400, {
      error: 'validation_error',
      message: `Invalid body: ${field} ${message}`,
      details: { fields: [{ field, message }] },
    });
    expect((await api.get(tenant.admin, '/api/v1/settings/grants')).json()).toEqual({ data: { issue_on_allow: false } });
  });

  it("are an admin's to change", async () => {
    const { tenant } = await tenantWithPolicy(t.app, 'allow');
    const reviewer = await sessionWithRole(t.app, tenant, 'reviewer');
    expect((await api.put(reviewer, '/api/v1/settings/grants', { issue_on_allow: true })).statusCode).toBe(403);
    const adminKey = await keyWithScopes(t.app, tenant, ['admin']);
    expect((await api.put(adminKey, '/api/v1/settings/grants', { issue_on_allow: true })).json()).toEqual({
      data: { issue_on_allow: true },
    });
  });
});

describe('on embedded PostgreSQL', () => {
  const embedded = useTestApp({
    env: { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'agov-grants-')), MIGRATE_ON_START: 'true' },
  });

  it('issues a grant that verifies offline, and redeems it once', async () => {
    const { tenant, agent } = await approvalRequired(embedded.app);
    const evaluated = await evaluation(embedded.app, tenant, action(agent.id));
    expect((await decide(embedded.app, tenant.admin, evaluated.approval_request_id!, 'approve', { approver_name: 'Em' })).statusCode).toBe(
      200,
    );
    const embeddedApi = client(embedded);
    const { grant } = (await embeddedApi.get(tenant.runtimeKey, `/api/v1/approvals/${evaluated.approval_request_id}/status`)).json();
    const jwks = (await embeddedApi.get(null, `/.well-known/jwks.json?tenant_id=${tenant.tenantId}`)).json();
    const claims = await verifyGrant(grant, action(agent.id), jwks, { tenantId: tenant.tenantId });
    expect(claims.trace_id).toBe(evaluated.trace_id);
    const redeem = () => embeddedApi.post(tenant.runtimeKey, `/api/v1/grants/${claims.jti}/redeem`);
    expect((await redeem()).statusCode).toBe(200);
    expect((await redeem()).statusCode).toBe(409);
  });

  it('signs allows once the tenant turns grants on', async () => {
    const { tenant, agent } = await tenantWithPolicy(embedded.app, 'allow');
    const embeddedApi = client(embedded);
    expect((await embeddedApi.put(tenant.admin, '/api/v1/settings/grants', { issue_on_allow: true })).statusCode).toBe(200);
    const allowed = await evaluation(embedded.app, tenant, action(agent.id));
    const jwks = (await embeddedApi.get(null, `/.well-known/jwks.json?tenant_id=${tenant.tenantId}`)).json();
    const claims = await verifyGrant(allowed.grant!, action(agent.id), jwks, { tenantId: tenant.tenantId, decision: 'allowed' });
    expect(claims).toMatchObject({ trace_id: allowed.trace_id, approval_id: null });
    expect((await embeddedApi.post(tenant.runtimeKey, `/api/v1/grants/${claims.jti}/redeem`)).statusCode).toBe(200);
  });
});
