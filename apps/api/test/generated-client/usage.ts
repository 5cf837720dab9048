/**
 * What an integrator writes with a client generated from /openapi.json by openapi-typescript
 * and openapi-fetch: sign up, make an admin key, register an agent, add a rule, evaluate an
 * action, record its outcome, and read the error of a refused call. It uses every free-form
 * field (agent `credential_config` and `metadata`, rule `conditions`, evaluate `context`,
 * outcome `metadata`) with nested values, so `npm run typecheck` fails when the document
 * types them as anything but open objects, or types an error body as anything but the error.
 *
 * The types are the SDK's (packages/sdk/src/generated/openapi.ts): openapi-typescript's output
 * for the committed contract with its default options, kept current by the SDK's drift test.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../../../packages/sdk/src/generated/openapi.js';

type Answer<Data, Failure> = { data: Data; error?: never; response: Response } | { data?: never; error: Failure; response: Response };

/** The body of a successful answer; a failed one throws with the service's error. */
function dataOf<Data, Failure extends { error: string; message: string }>(answer: Answer<Data, Failure>): NonNullable<Data> {
  if (answer.error !== undefined) throw new Error(`${answer.response.status} ${answer.error.error}: ${answer.error.message}`);
  if (answer.data === undefined || answer.data === null) throw new Error(`${answer.response.status} without a body`);
  return answer.data;
}

export interface Walkthrough {
  agent: { id: string; credential_config: Record<string, unknown> | null; metadata: Record<string, unknown> | null };
  rule: { id: string; conditions: Record<string, unknown> | null };
  evaluation: { decision: string; trace_id: string; policy_rule_id: string | null; reason: string };
  outcome: { status: number; final_outcome: string; metadata: Record<string, unknown> | null };
  refusal: { status: number; error: string; details: Record<string, unknown> | undefined };
}

export async function governOneAction(
  baseUrl: string,
  email: string,
  fetch: typeof globalThis.fetch = globalThis.fetch,
): Promise<Walkthrough> {
  const anonymous = createClient<paths>({ baseUrl, fetch });
  const signedUp = await anonymous.POST('/api/v1/auth/signup', {
    body: { organization_name: 'Acme', name: 'Ada Admin', email, password: 'correct horse battery staple' },
  });
  const signup = dataOf(signedUp).data;
  const session = signedUp.response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('agov_session='))!
    .split(';')[0]!;
  const adminKey = dataOf(
    await anonymous.POST('/api/v1/api-keys', {
      body: { name: 'setup', scopes: ['admin'] },
      headers: { cookie: session, 'x-requested-with': 'XMLHttpRequest' },
    }),
  ).data.key;

  const admin = createClient<paths>({ baseUrl, fetch, headers: { authorization: `Bearer ${adminKey}` } });
  const agent = dataOf(
    await admin.POST('/api/v1/agents', {
      body: {
        name: 'invoice-bot',
        description: 'Pays supplier invoices',
        owner_name: 'Olivia Owner',
        owner_role: 'Finance lead',
        team: 'finance',
        environment: 'prod',
        authority_model: 'delegated',
        identity_mode: 'service_identity',
        delegation_model: 'on_behalf_of_owner',
        autonomy_tier: 'medium',
        authorized_integrations: [
          { name: 'payments', resource_scope: 'invoices/*', data_classification: 'confidential', allowed_operations: ['pay'] },
        ],
        credential_config: { vault: { path: 'kv/invoice-bot', rotate_days: 30 } },
        metadata: { cost_center: 'F-100', labels: ['finance', 'payments'] },
        next_review_date: '2027-01-31',
        created_by: 'olivia@example.test',
        modified_by: 'olivia@example.test',
        modified_at: '2026-11-01T09:00:00.000Z',
      },
    }),
  ).data;
  const rule = dataOf(
    await admin.POST('/api/v1/policies', {
      body: {
        agent_id: agent.id,
        policy_name: 'Small euro invoices',
        target_integration: 'payments',
        operation: 'pay',
        resource_scope: 'invoices/*',
        data_classification: 'confidential',
        policy_effect: 'allow',
        rationale: 'Invoices up to 1000 EUR are paid without review.',
        priority: 10,
        conditions: {
          and: [{ '<=': [{ var: 'context.invoice.amount' }, 1000] }, { in: [{ var: 'context.invoice.currency' }, ['EUR']] }],
        },
        max_session_ttl: null,
        modified_by: 'olivia@example.test',
        modified_at: '2026-11-01T09:00:00.000Z',
      },
    }),
  ).data;

  const runtime = createClient<paths>({ baseUrl, fetch, headers: { authorization: `Bearer ${signup.api_key.key}` } });
  const evaluation = dataOf(
    await runtime.POST('/api/v1/evaluate', {
      body: {
        agent_id: agent.id,
        operation: 'pay',
        target_integration: 'payments',
        resource_scope: 'invoices/2026-0042',
        data_classification: 'confidential',
        context: { invoice: { amount: 840, currency: 'EUR', lines: [{ sku: 'A-1', quantity: 2 }] } },
      },
    }),
  );
  const outcome = await runtime.POST('/api/v1/traces/{traceId}/outcome', {
    params: { path: { traceId: evaluation.trace_id } },
    body: { status: 'success', metadata: { payment: { id: 'pay_0042', attempts: [{ at: '2026-11-26T10:00:00Z' }] } } },
  });

  const trace = dataOf(await runtime.GET('/api/v1/traces/{traceId}', { params: { path: { traceId: evaluation.trace_id } } }));
  const recorded = trace.events.find((event) => event.event_type === 'operation_executed')!;

  // The runtime key may evaluate, not read agents: the error says which scope it lacks.
  const refused = await runtime.GET('/api/v1/agents/{id}', { params: { path: { id: agent.id } } });
  if (refused.error === undefined) throw new Error('an agent-runtime key read an agent');
  return {
    agent: { id: agent.id, credential_config: agent.credential_config, metadata: agent.metadata },
    rule: { id: rule.id, conditions: rule.conditions },
    evaluation: {
      decision: evaluation.decision,
      trace_id: evaluation.trace_id,
      policy_rule_id: evaluation.policy_rule_id,
      reason: evaluation.reason,
    },
    outcome: {
      status: outcome.response.status,
      final_outcome: trace.final_outcome,
      metadata: recorded.metadata,
    },
    refusal: { status: refused.response.status, error: refused.error.error, details: refused.error.details },
  };
}
