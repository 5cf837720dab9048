import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../contract/violations.js';
import { uniqueEmail, useTestApp } from '../harness.js';
import { governOneAction } from './usage.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('a client generated from the OpenAPI document (usage.ts)', () => {
  const t = useTestApp();
  let baseUrl: string;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });

  it('signs up, makes a key, registers an agent and a rule, evaluates and records the outcome, on a real port', async () => {
    const result = await governOneAction(baseUrl, uniqueEmail('generated'), checkedFetch(t.app.swagger()));

    expect(result).toEqual({
      agent: {
        id: expect.stringMatching(UUID),
        credential_config: { vault: { path: 'kv/invoice-bot', rotate_days: 30 } },
        metadata: { cost_center: 'F-100', labels: ['finance', 'payments'] },
      },
      rule: {
        id: expect.stringMatching(UUID),
        conditions: { and: [{ '<=': [{ var: 'context.invoice.amount' }, 1000] }, { in: [{ var: 'context.invoice.currency' }, ['EUR']] }] },
      },
      evaluation: {
        decision: 'allow',
        trace_id: expect.stringMatching(UUID),
        policy_rule_id: result.rule.id,
        reason: 'Invoices up to 1000 EUR are paid without review.',
      },
      outcome: {
        status: 204,
        final_outcome: 'executed',
        metadata: { payment: { id: 'pay_0042', attempts: [{ at: '2026-11-26T10:00:00Z' }] } },
      },
      refusal: {
        status: 403,
        error: 'forbidden',
        details: { required_scope: 'agents:read', scopes: ['evaluate', 'traces:read', 'traces:write', 'approvals:read', 'policies:read'] },
      },
    });
  });
});
