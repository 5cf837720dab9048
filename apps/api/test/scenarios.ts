/**
 * Multi-step setups and reads that several test files share. Naming: a verb (`evaluate`,
 * `decide`, `recordOutcome`) answers the raw response, for tests about status codes; a noun
 * (`evaluation`, `decision`) asserts success and answers the body.
 */
import { asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { outbox } from '@agov/db';
import { stopUntilTestEnds } from './assertions.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { type Credential, signupTenant, type Tenant, type TestApp, type TestClock } from './harness.js';

export type Effect = 'allow' | 'deny' | 'approval_required';
export type Verdict = 'approve' | 'deny';

/** What POST /evaluate answers. */
export interface Evaluation {
  decision: string;
  trace_id: string;
  approval_request_id: string | null;
  reason: string;
  policy_rule_id: string | null;
  risk_classification?: string;
  grant?: string;
}

export interface TraceEvent {
  id: string;
  event_type: string;
  actor_type: string;
  actor_name: string;
  description: string;
  status: string;
  timestamp: string;
  policy_version: number | null;
  approval_request_id: string | null;
  metadata: unknown;
  integrity_hash: string;
}

/** A trace as GET /traces/:id shows it. */
export type Trace = Record<string, unknown> & {
  id: string;
  agent_id: string;
  final_outcome: string;
  started_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  events: TraceEvent[];
  approval_requests: { id: string; status: string; approver_name: string | null; decided_at: string | null }[];
};

/** An approval request as the list shows it. */
export type Approval = Record<string, unknown> & { id: string; trace_id: string; agent_id: string; requested_at: string };

/** A fresh tenant with one agent; `admin` writes, the runtime key evaluates. */
export async function tenantWithAgent(app: FastifyInstance, agentOverrides: Record<string, unknown> = {}) {
  const tenant = await signupTenant(app);
  const agent = await createAgent(app, tenant.admin, agentOverrides);
  return { tenant, agent };
}

/** A fresh tenant whose agent has one rule of `effect` for the fixture action. */
export async function tenantWithPolicy(app: FastifyInstance, effect: Effect, policyOverrides: Record<string, unknown> = {}) {
  const { tenant, agent } = await tenantWithAgent(app);
  const rule = await createPolicy(app, tenant.admin, agent.id, { policy_effect: effect, ...policyOverrides });
  return { tenant, agent, rule };
}

export const evaluate = (app: FastifyInstance, tenant: Tenant, payload: Record<string, unknown>) =>
  client(app).post(tenant.runtimeKey, '/api/v1/evaluate', payload);

export async function evaluation(app: FastifyInstance, tenant: Tenant, payload: Record<string, unknown>): Promise<Evaluation> {
  const response = await evaluate(app, tenant, payload);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Records the outcome of a trace's operation. */
export const recordOutcome = (app: FastifyInstance, credential: Credential, traceId: string, payload: unknown) =>
  client(app).post(credential, `/api/v1/traces/${traceId}/outcome`, payload);

/** Records that the trace's operation succeeded, which must be accepted. */
export async function succeeded(app: FastifyInstance, tenant: Tenant, traceId: string) {
  const response = await recordOutcome(app, tenant.runtimeKey, traceId, { status: 'success' });
  expect(response.statusCode, response.body).toBe(204);
}

/** `tenantWithPolicy`, and the trace of one evaluate call of the fixture action, decided as `effect`. */
export async function evaluatedTrace(app: FastifyInstance, effect: Effect, policyOverrides: Record<string, unknown> = {}) {
  const { tenant, agent } = await tenantWithPolicy(app, effect, policyOverrides);
  const body = await evaluation(app, tenant, action(agent.id));
  expect(body.decision).toBe(effect);
  return { tenant, agent, traceId: body.trace_id, approvalId: body.approval_request_id };
}

/** Approves or denies; without `payload` the request has no body. */
export const decide = (app: FastifyInstance, credential: Credential, approvalId: string, verdict: Verdict, payload?: unknown) =>
  client(app).post(credential, `/api/v1/approvals/${approvalId}/${verdict}`, payload);

/** An admin's decision, which must succeed; answers the decided request. */
export async function decision(
  app: FastifyInstance,
  tenant: Tenant,
  approvalId: string,
  verdict: Verdict,
  payload: Record<string, unknown>,
) {
  const response = await decide(app, tenant.admin, approvalId, verdict, payload);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as Approval;
}

export async function traceOf(app: FastifyInstance, tenant: Tenant, traceId: string): Promise<Trace> {
  const response = await client(app).get(tenant.runtimeKey, `/api/v1/traces/${traceId}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** What GET /traces/:id/verify answers, whatever its status. */
export const verification = async (app: FastifyInstance, tenant: Tenant, traceId: string) =>
  (await client(app).get(tenant.runtimeKey, `/api/v1/traces/${traceId}/verify`)).json();

export const eventTypes = (trace: { events: { event_type: string }[] }) => trace.events.map((e) => e.event_type);

/** The rationale of `approvalRequired`'s rule, which becomes each request's flag_reason. */
export const APPROVAL_RATIONALE = 'Repository writes need a human reviewer.';
/** The events evaluate records for an approval_required decision. */
export const APPROVAL_REQUESTED_EVENTS = [
  'trace_initiated',
  'identity_resolved',
  'policy_evaluated',
  'sensitive_operation_detected',
  'approval_requested',
];

/** A fresh tenant whose agent needs a human for the fixture action. */
export async function approvalRequired(app: FastifyInstance, rule: Record<string, unknown> = {}) {
  const { tenant, agent } = await tenantWithPolicy(app, 'approval_required', { rationale: APPROVAL_RATIONALE, ...rule });
  return { tenant, agent };
}

/** An approval's detail as the list and webhooks show the request: without its agent, trace and grant. */
export function asListed(detail: Record<string, unknown>): Record<string, unknown> {
  const { agent: _agent, trace: _trace, grant: _grant, grant_expires_at: _expires, grant_redeemed_at: _redeemed, ...listed } = detail;
  return listed;
}

/** Evaluates the fixture action and returns the pending request as the list shows it. */
export async function requestApproval(app: FastifyInstance, tenant: Tenant, agentId: string, context?: Record<string, unknown>) {
  const response = await evaluate(app, tenant, { ...action(agentId), ...(context ? { context } : {}) });
  expect(response.json().decision, response.body).toBe('approval_required');
  const id = response.json().approval_request_id as string;
  const listed = (await client(app).get(tenant.runtimeKey, '/api/v1/approvals?limit=100')).json().data as Approval[];
  const approval = listed.find((item) => item.id === id);
  expect(approval).toBeDefined();
  return approval!;
}

/**
 * An active endpoint subscribed to `audit.event`, so that the tenant's evaluations record
 * their audit fan-out (without one, evaluate leaves it out: nobody would receive it). The
 * address is public, as production requires, and never reached: no test of the shared
 * database dispatches.
 */
export async function subscribeToAuditEvents(app: FastifyInstance, tenant: Tenant) {
  const response = await client(app).post(tenant.admin, '/api/v1/webhooks', {
    url: 'https://93.184.215.14/audit',
    events: ['audit.event'],
  });
  expect(response.statusCode, response.body).toBe(201);
}

/** The tenant's outbox: approval webhooks after approval.requested, audit fan-outs, and the row count. */
export async function approvalEffectsOf(t: TestApp, tenantId: string) {
  const rows = await t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenantId)).orderBy(asc(outbox.createdAt));
  return {
    webhooks: rows
      .filter((row) => row.kind === 'webhook' && /^approval\.(approved|denied|expired)$/.test(String(row.payload.event)))
      .map((row) => row.payload),
    audit: rows
      .filter((row) => row.kind === 'audit_events')
      .map((row) => row.payload)
      .sort((a, b) => Number(a.from_seq) - Number(b.from_seq)),
    total: rows.length,
  };
}

/** What must not move when a call on an approval is refused: the chain length and the outbox. */
export async function approvalSnapshot(t: TestApp, tenant: Tenant, approval: Approval) {
  const trace = await traceOf(t.app, tenant, approval.trace_id);
  return { events: trace.events.length, finalOutcome: trace.final_outcome, outbox: (await approvalEffectsOf(t, tenant.tenantId)).total };
}

const DAY_MS = 86_400_000;

/**
 * For tests of a history over days: a tenant with two agents, each with a rule that allows
 * writes and one that asks for approval of refunds (its requests pending for a week), deletes
 * left to the default deny; and the clock stopped until the test ends, at `start`, the first
 * instant of the UTC day after the next.
 */
export async function tenantOverDays(app: FastifyInstance, clock: TestClock) {
  const tenant = await signupTenant(app);
  const agents = [await createAgent(app, tenant.admin), await createAgent(app, tenant.admin)];
  for (const agent of agents) {
    await createPolicy(app, tenant.admin, agent.id, { policy_name: 'Writes', priority: 10 });
    await createPolicy(app, tenant.admin, agent.id, {
      operation: 'refund',
      policy_name: 'Refunds',
      policy_effect: 'approval_required',
      priority: 20,
      max_session_ttl: 7 * 86_400,
    });
  }
  const stopped = stopUntilTestEnds(clock).getTime();
  const start = Math.ceil(stopped / DAY_MS) * DAY_MS + DAY_MS;
  clock.step(start - stopped);
  return { tenant, agents, start };
}
