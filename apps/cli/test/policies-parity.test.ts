import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { client } from '../../api/test/client.js';
import { createAgent, createPolicy } from '../../api/test/fixtures.js';
import { keyWithScopes, signupTenant, type Tenant, useTestApp } from '../../api/test/harness.js';
import { agov } from './run.js';

/**
 * `agov policies test` decides with the service's own code: on random rule sets and requests,
 * the verdict of each case, decided offline from the pulled file, is the dry run's.
 */
const t = useTestApp();
const api = client(t);
const dir = mkdtempSync(join(tmpdir(), 'agov-parity-'));

let tenant: Tenant;
let env: Record<string, string>;

beforeAll(async () => {
  const url = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  tenant = await signupTenant(t.app);
  const key = await keyWithScopes(t.app, tenant, ['agents:read', 'policies:read']);
  env = { AGOV_URL: url, AGOV_API_KEY: key.apiKey };
});

// Small alphabets, so that rules and requests meet often, wildcards overlap and priorities tie.
const OPERATIONS = ['read', 'write', 'deploy'];
const INTEGRATIONS = ['github', 'stripe'];
const SCOPES = ['repo/app', 'repo/lib', 'charges/ch_1'];
const CLASSIFICATIONS = ['internal', 'confidential'];

const ruleArbitrary = fc.record({
  operation: fc.constantFrom(...OPERATIONS, '*'),
  target_integration: fc.constantFrom(...INTEGRATIONS, '*'),
  resource_scope: fc.constantFrom(...SCOPES, 'repo/*', '*', 'charges/ch_?'),
  data_classification: fc.constantFrom(...CLASSIFICATIONS),
  policy_effect: fc.constantFrom('allow', 'approval_required', 'deny'),
  priority: fc.integer({ min: 0, max: 2 }),
  mode: fc.constantFrom('enforce', 'enforce', 'shadow'),
  conditions: fc.constantFrom(
    null,
    { '==': [{ var: 'agent.environment' }, 'dev'] },
    { '==': [{ var: 'agent.autonomy_tier' }, 'high'] },
    { in: ['repo', { var: 'request.resource_scope' }] },
  ),
});

const requestArbitrary = fc.record({
  operation: fc.constantFrom(...OPERATIONS),
  target_integration: fc.constantFrom(...INTEGRATIONS),
  resource_scope: fc.constantFrom(...SCOPES),
  data_classification: fc.constantFrom(...CLASSIFICATIONS),
});

const yamlOf = (value: unknown) => JSON.stringify(value);

describe('agov policies test against the dry run', () => {
  it('gives every case the dry run’s decision and rule, on random rules and requests', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(ruleArbitrary, { minLength: 0, maxLength: 6 }),
        fc.array(requestArbitrary, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('dev', 'prod'),
        async (rules, requests, environment) => {
          run += 1;
          const agent = await createAgent(t.app, tenant.admin, { name: `parity-${run}`, environment });
          const names = new Map<string, string>();
          for (const [index, rule] of rules.entries()) {
            const created = await createPolicy(t.app, tenant.admin, agent.id, { ...rule, policy_name: `rule ${index}` });
            names.set(created.id, `rule ${index}`);
          }
          const expected: { effect: string; rule: string | null }[] = [];
          for (const request of requests) {
            const response = await api.post(tenant.admin, '/api/v1/policies/test', { agent_id: agent.id, ...request });
            expect(response.statusCode, response.body).toBe(200);
            const { effect, rule_id } = response.json() as { effect: string; rule_id: string | null };
            expected.push({ effect, rule: rule_id === null ? null : names.get(rule_id)! });
          }

          const policies = join(dir, `policies-${run}.yaml`);
          const cases = join(dir, `cases-${run}.yaml`);
          expect((await agov(['policies', 'pull', '-o', policies], { env })).status).toBe(0);
          writeFileSync(
            cases,
            `cases:\n${requests
              .map(
                (request, index) =>
                  `  - name: case ${index}\n    agent: ${agent.id}\n    agent_fields: { environment: ${environment}, autonomy_tier: medium }\n` +
                  `    request: ${yamlOf(request)}\n    expect: ${expected[index]!.effect}\n    expect_rule: ${yamlOf(expected[index]!.rule)}\n`,
              )
              .join('')}`,
          );
          const verdict = await agov(['policies', 'test', '-f', policies, '-t', cases]);
          expect(verdict, JSON.stringify({ rules, requests, environment })).toMatchObject({
            status: 0,
            stderr: '',
            stdout: expect.stringContaining(`${requests.length} cases: ${requests.length} passed, 0 failed`),
          });
        },
      ),
      { numRuns: 20 },
    );
    // Each run starts the command line twice.
  }, 240_000);
});
