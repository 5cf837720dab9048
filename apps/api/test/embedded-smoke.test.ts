import { describe, expect, it } from 'vitest';
import { actionDigest } from '@agov/domain';
import { useEmbeddedService } from '../../../test/embedded-service.js';
import { action, agentBody, policyBody } from './fixtures.js';

/** Starts the built service (built by the test setup) as `npm start` does, with no DATABASE_URL: embedded PostgreSQL. */
describe('embedded mode, built service on a real port', () => {
  const service = useEmbeddedService();
  /** A request the shutdown finds waited on. */
  let stillPending: { id: string; auth: Record<string, string> };
  const call = async <T = unknown>(credential: Record<string, string>, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.baseUrl}/api/v1${path}`, {
      method,
      headers: { ...credential, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const signedIn = (response: Response) => ({
    cookie: response.headers.get('set-cookie')!.split(';')[0]!,
    'x-requested-with': 'XMLHttpRequest',
  });

  it('answers /health and signs up a tenant', async () => {
    const health = await fetch(`${service.baseUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const signup = await fetch(`${service.baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization_name: 'Embedded', name: 'Em', email: 'em@example.test', password: 'a long enough password' }),
    });
    expect(signup.status).toBe(201);
    const { data } = (await signup.json()) as { data: { api_key: { key: string } } };
    expect(signup.headers.get('set-cookie')).toMatch(/agov_session=.*HttpOnly.*Secure/i);

    const me = await fetch(`${service.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${data.api_key.key}` } });
    expect(me.status).toBe(200);
    expect(service.output).toContain('"database":"pglite"');
  });

  it('wakes a long poll on the status when the request is approved', async () => {
    const signup = await fetch(`${service.baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization_name: 'Waiting', name: 'Wa', email: 'wa@example.test', password: 'a long enough password' }),
    });
    const { data } = (await signup.json()) as { data: { api_key: { key: string } } };
    const session = signedIn(signup);
    const runtime = { authorization: `Bearer ${data.api_key.key}` };
    const agent = (await call<{ data: { id: string } }>(session, 'POST', '/agents', agentBody())).body.data;
    expect((await call(session, 'POST', '/policies', policyBody(agent.id, { policy_effect: 'approval_required' }))).status).toBe(201);
    const evaluated = await call<{ decision: string; approval_request_id: string }>(runtime, 'POST', '/evaluate', action(agent.id));
    expect(evaluated.body.decision).toBe('approval_required');
    const id = evaluated.body.approval_request_id;

    // Waits longer than the test may run: only the decision's notice can end it in time.
    const answer = call(runtime, 'GET', `/approvals/${id}/status?wait=60`);
    // The poll has reached its wait once it has been read at least once; a decision before that is read by it directly.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await call(session, 'POST', `/approvals/${id}/approve`, { approver_name: 'Wa' })).status).toBe(200);
    const next = await call<{ approval_request_id: string }>(runtime, 'POST', '/evaluate', action(agent.id));
    stillPending = { id: next.body.approval_request_id, auth: runtime };
    expect(await answer).toEqual({
      status: 200,
      body: {
        id,
        status: 'approved',
        decided_at: expect.any(String),
        approver_name: 'Wa',
        decision_note: null,
        action_digest: actionDigest(action(agent.id)),
        grant: expect.any(String),
      },
    });
  });

  it('takes two reviewers to approve a request whose rule needs two', async () => {
    const signup = await fetch(`${service.baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization_name: 'Quorum', name: 'Qu', email: 'qu@example.test', password: 'a long enough password' }),
    });
    const { data } = (await signup.json()) as { data: { api_key: { key: string } } };
    const admin = signedIn(signup);
    const reviewers = [];
    for (const name of ['Ann', 'Ben']) {
      const email = `${name.toLowerCase()}@quorum.test`;
      const password = 'a long enough password';
      expect((await call(admin, 'POST', '/users', { name, email, password, role: 'reviewer' })).status).toBe(201);
      const login = await fetch(`${service.baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      reviewers.push(signedIn(login));
    }
    const agent = (await call<{ data: { id: string } }>(admin, 'POST', '/agents', agentBody())).body.data;
    const rule = policyBody(agent.id, { policy_effect: 'approval_required', approvals_required: 2 });
    expect((await call(admin, 'POST', '/policies', rule)).status).toBe(201);
    const runtime = { authorization: `Bearer ${data.api_key.key}` };
    const { approval_request_id: id } = (await call<{ approval_request_id: string }>(runtime, 'POST', '/evaluate', action(agent.id))).body;

    const first = await call<{ data: { status: string } }>(reviewers[0]!, 'POST', `/approvals/${id}/approve`, { approver_name: 'Ann' });
    expect(first).toMatchObject({ status: 200, body: { data: { status: 'pending' } } });
    expect((await call(reviewers[0]!, 'POST', `/approvals/${id}/approve`, { approver_name: 'Ann' })).status).toBe(409);
    const second = await call<{ data: { status: string; votes: unknown[] } }>(reviewers[1]!, 'POST', `/approvals/${id}/approve`, {
      approver_name: 'Ben',
    });
    expect(second.status).toBe(200);
    expect(second.body.data.status).toBe('approved');
    expect(second.body.data.votes).toHaveLength(2);
  });

  it('shuts down gracefully on SIGTERM, answering a waiting long poll at once', async () => {
    const poll = fetch(`${service.baseUrl}/api/v1/approvals/${stillPending.id}/status?wait=60`, { headers: stillPending.auth });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exited = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const answer = await poll;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ id: stillPending.id, status: 'pending' });
  });
});
