import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { outbox } from '@agov/db';
import type { Client } from './client.js';
import { createAgent } from './fixtures.js';
import { signupTenant, type Tenant, type TestApp } from './harness.js';

/** The policy tests' rule: every field set, so each test can see what it changes. */
export const ruleBody = (agentId: string, overrides: Record<string, unknown> = {}) => ({
  agent_id: agentId,
  policy_name: 'Approve large refunds',
  target_integration: 'payments',
  operation: 'refund',
  resource_scope: 'refunds/*',
  data_classification: 'confidential',
  policy_effect: 'approval_required',
  rationale: 'Refunds move money and need a second pair of eyes',
  priority: 100,
  conditions: { '>': [{ var: 'context.amount' }, 1000] },
  max_session_ttl: 3600,
  escalate_after_seconds: null,
  modified_by: 'Olga',
  modified_at: '2025-06-02T08:00:00Z',
  ...overrides,
});

export type Json = Record<string, unknown> & { id: string };

/** The 400 of `conditions` that are an object but no valid JSON Logic: the problem names where it is. */
export const invalidConditions = (problem: string) => ({
  error: 'validation_error',
  message: `Invalid conditions: ${problem}`,
  details: { fields: [{ field: 'conditions', message: problem }] },
});

/** A fresh tenant with an agent and one rule made from `ruleBody`. */
export async function setup(t: TestApp, api: Client, overrides: Record<string, unknown> = {}) {
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  const response = await api.post(tenant.admin, '/api/v1/policies', ruleBody(agent.id, overrides));
  expect(response.statusCode, response.body).toBe(201);
  return { tenant, agent, rule: response.json().data as Json };
}

/** The tenant's recorded effects, oldest first. */
export const policyEvents = async (t: TestApp, tenantId: string) =>
  (await t.runtime.database.db.select().from(outbox).where(eq(outbox.tenantId, tenantId)).orderBy(outbox.createdAt)).map((row) => ({
    kind: row.kind,
    event: row.payload.event,
    data: row.payload.data,
  }));

export const versions = async (api: Client, tenant: Tenant, ruleId: string) =>
  (await api.get(tenant.admin, `/api/v1/policies/${ruleId}/versions`)).json().data as Json[];
