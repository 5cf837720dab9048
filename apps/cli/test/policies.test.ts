import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { client } from '../../api/test/client.js';
import { action, createAgent, createPolicy } from '../../api/test/fixtures.js';
import { keyWithScopes, signupTenant, type Tenant, useTestApp } from '../../api/test/harness.js';
import { evaluation } from '../../api/test/scenarios.js';
import { agov } from './run.js';

/** agov policies pull, plan, apply (against the service on a real port) and test (offline). */
const t = useTestApp();
const api = client(t);
const dir = mkdtempSync(join(tmpdir(), 'agov-policies-'));

/** One rule as the file holds it, every field written out, indented as a rule of an agent. */
const ruleYaml = (fields: Record<string, string>, id?: string) =>
  [
    ...(id ? [`id: ${id}`] : []),
    `policy_name: ${fields.policy_name}`,
    'target_integration: github',
    `operation: ${fields.operation ?? 'write'}`,
    'resource_scope: repo/*',
    'data_classification: internal',
    `policy_effect: ${fields.policy_effect ?? 'allow'}`,
    'rationale: Routine repository maintenance is allowed.',
    `priority: ${fields.priority ?? '10'}`,
    'conditions: null',
    'max_session_ttl: null',
    'approvals_required: 1',
    'escalate_after_seconds: null',
    'mode: enforce',
  ]
    .map((line, index) => `      ${index === 0 ? '- ' : '  '}${line}`)
    .join('\n');

interface World {
  tenant: Tenant;
  env: Record<string, string>;
  ops: { id: string };
  bot: { id: string };
  writes: { id: string };
  deploys: { id: string };
}

let world: World;

beforeAll(async () => {
  const url = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  const tenant = await signupTenant(t.app);
  const key = await keyWithScopes(t.app, tenant, ['agents:read', 'policies:read', 'policies:write']);
  const ops = await createAgent(t.app, tenant.admin, { name: 'ops' });
  const bot = await createAgent(t.app, tenant.admin, { name: 'bot' });
  const writes = await createPolicy(t.app, tenant.admin, ops.id);
  const deploys = await createPolicy(t.app, tenant.admin, ops.id, { policy_name: 'Deploys', operation: 'deploy' });
  // Recorded traffic for the what-if: three writes and two deploys allowed, one read denied.
  for (const payload of [
    action(ops.id),
    action(ops.id),
    action(ops.id),
    action(ops.id, { operation: 'deploy' }),
    action(ops.id, { operation: 'deploy' }),
    action(ops.id, { operation: 'read' }),
  ]) {
    await evaluation(t.app, tenant, payload);
  }
  world = { tenant, env: { AGOV_URL: url, AGOV_API_KEY: key.apiKey }, ops, bot, writes, deploys };
});

const revision = async () => (await api.get(world.tenant.admin, '/api/v1/policies/revision')).json().data.revision as string;

describe('agov policies pull, plan and apply', () => {
  const file = join(dir, 'policies.yaml');

  /** What pull writes: the header, the agents by name, each rule with every field. */
  const pulled = () => `# Policy rules, as \`agov policies pull\` writes them: one entry per agent, each with its rules.
# Edit, then \`agov policies plan -f FILE\` and \`agov policies apply -f FILE\`; a rule without
# an id is created. Comments are kept by apply and pull.

agents:
  - name: bot
    id: ${world.bot.id}
    rules: []
  - name: ops
    id: ${world.ops.id}
    rules:
${ruleYaml({ policy_name: 'Allow repository writes' }, world.writes.id)}
${ruleYaml({ policy_name: 'Deploys', operation: 'deploy' }, world.deploys.id)}
`;

  /** The file edited: a comment, Deploys denied at priority 30, a read rule added, the writes rule deleted. */
  const edited = (readsId?: string) => `# Policy rules, as \`agov policies pull\` writes them: one entry per agent, each with its rules.
# Edit, then \`agov policies plan -f FILE\` and \`agov policies apply -f FILE\`; a rule without
# an id is created. Comments are kept by apply and pull.

agents:
  - name: bot
    id: ${world.bot.id}
    rules: []
  # Ops deploys only through the release train.
  - name: ops
    id: ${world.ops.id}
    rules:
${ruleYaml({ policy_name: 'Deploys', operation: 'deploy', policy_effect: 'deny', priority: '30 # CAB decision 2026-11' }, world.deploys.id)}
${ruleYaml({ policy_name: 'Reads', operation: 'read' }, readsId)}
`;

  it('pulls the rules as YAML, grouped by agent, to a file or standard output', async () => {
    const run = await agov(['policies', 'pull', '-o', file], { env: world.env });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`wrote 2 rules of 2 agents to ${file} (revision ${await revision()})\n`);
    expect(readFileSync(file, 'utf8')).toBe(pulled());
    expect(await agov(['policies', 'pull'], { env: world.env })).toEqual({ status: 0, stdout: pulled(), stderr: '' });
  });

  it('plans the edited file rule by rule with the what-if, applies it, and pulls it back unchanged', async () => {
    writeFileSync(file, edited());
    const before = await revision();
    const plan = await agov(['policies', 'plan', '-f', file], { env: world.env });
    expect(plan.stderr).toBe('');
    expect(plan.status).toBe(0);
    const lines = plan.stdout.split('\n');
    expect(lines).toEqual([
      `plan of ${file} against revision ${before}`,
      `  update  "Deploys" of agent "ops" (${world.deploys.id}): policy_effect "allow" -> "deny", priority 10 -> 30`,
      '  create  "Reads" of agent "ops"',
      `  delete  "Allow repository writes" of agent "ops" (${world.writes.id})`,
      '1 to create, 1 to update, 1 to delete, 0 unchanged',
      expect.stringMatching(/^what-if over the last 7 days \(\S+Z to \S+Z\): 6 of 6 evaluations would be decided otherwise$/),
      '  allow -> deny: 5',
      '  deny -> allow: 1',
      '',
    ]);
    expect(await revision()).toBe(before);

    const digest = `sha256:${createHash('sha256').update(edited()).digest('hex')}`;
    const apply = await agov(['policies', 'apply', '-f', file, '--revision', before], { env: world.env });
    expect(apply.stderr).toBe('');
    expect(apply.status).toBe(0);
    const after = await revision();
    expect(apply.stdout).toBe([...lines.slice(0, 5), `applied; the rules are now at revision ${after}`, ''].join('\n'));

    const live = (await api.get(world.tenant.admin, '/api/v1/policies?is_active=true')).json().data as {
      id: string;
      policy_name: string;
    }[];
    const reads = live.find(({ policy_name }) => policy_name === 'Reads')!;
    expect(live.map(({ id }) => id).sort()).toEqual([world.deploys.id, reads.id].sort());
    const summaries = async (id: string) =>
      (await api.get(world.tenant.admin, `/api/v1/policies/${id}/versions`))
        .json()
        .data.map((v: { change_summary: string }) => v.change_summary);
    expect(await summaries(world.deploys.id)).toEqual([`Applied from policies.yaml (${digest})`, 'Created']);
    expect(await summaries(reads.id)).toEqual([`Applied from policies.yaml (${digest})`]);
    expect((await api.get(world.tenant.admin, `/api/v1/policies/${world.writes.id}`)).json().data.is_active).toBe(false);

    // The created rule's id is written into the file, its comments kept; a pull then changes nothing.
    expect(readFileSync(file, 'utf8')).toBe(edited(reads.id));
    const pull = await agov(['policies', 'pull', '-o', file], { env: world.env });
    expect(pull.status, pull.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(edited(reads.id));
    const again = await agov(['policies', 'plan', '-f', file], { env: world.env });
    expect(again).toEqual({
      status: 0,
      stdout: `plan of ${file} against revision ${after}\n0 to create, 0 to update, 0 to delete, 2 unchanged\n`,
      stderr: '',
    });
  });

  it('refuses to apply, exit 1, when someone changed the rules since the plan; without --revision it applies over them', async () => {
    const planned = await revision();
    writeFileSync(file, readFileSync(file, 'utf8').replace('priority: 30', 'priority: 31'));
    expect(
      (await api.patch(world.tenant.admin, `/api/v1/policies/${world.deploys.id}`, { rationale: 'Changed in the dashboard.' })).statusCode,
    ).toBe(200);
    const current = await revision();
    const run = await agov(['policies', 'apply', '-f', file, '--revision', planned], { env: world.env });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `agov policies apply: the live rules changed since revision ${planned} (now ${current}): nothing applied; plan again\n`,
    );
    expect(await revision()).toBe(current);
    expect((await api.get(world.tenant.admin, `/api/v1/policies/${world.deploys.id}`)).json().data.priority).toBe(30);

    // Without --revision it plans against the rules as they are now, so the file wins.
    const again = await agov(['policies', 'apply', '-f', file], { env: world.env });
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(
      [
        `plan of ${file} against revision ${current}`,
        `  update  "Deploys" of agent "ops" (${world.deploys.id}): priority 30 -> 31, rationale "Changed in the dashboard." -> "Routine repository maintenance is allowed."`,
        '0 to create, 1 to update, 0 to delete, 1 unchanged',
        `applied; the rules are now at revision ${await revision()}`,
        '',
      ].join('\n'),
    );
  });

  it('needs AGOV_URL and AGOV_API_KEY, a readable policy file, and rule ids that are live', async () => {
    expect(await agov(['policies', 'plan', '-f', file], { env: { AGOV_API_KEY: 'ai_x' } })).toEqual({
      status: 2,
      stdout: '',
      stderr:
        "agov policies plan: AGOV_URL is not set: the service to call, e.g. http://127.0.0.1:4000\nTry 'agov policies plan --help'.\n",
    });
    const missing = join(dir, 'missing.yaml');
    expect(await agov(['policies', 'plan', '-f', missing], { env: world.env })).toEqual({
      status: 2,
      stdout: '',
      stderr: `agov policies plan: cannot read ${missing}: ENOENT\n`,
    });
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, `agents:\n  - name: ops\n    id: ${world.ops.id}\n    rules:\n      - policy_name: x\n        priority: high\n`);
    expect(await agov(['policies', 'apply', '-f', bad], { env: world.env })).toEqual({
      status: 2,
      stdout: '',
      stderr: `agov policies apply: ${bad}: agents[0].rules[0].priority must be an integer\n`,
    });
    // A rule id that is no longer live: the file is out of date, and the command says so (exit 1).
    const stale = join(dir, 'stale.yaml');
    writeFileSync(
      stale,
      `agents:\n  - name: ops\n    id: ${world.ops.id}\n    rules:\n${ruleYaml({ policy_name: 'Gone' }, world.writes.id)}\n`,
    );
    expect(await agov(['policies', 'plan', '-f', stale], { env: world.env })).toEqual({
      status: 1,
      stdout: '',
      stderr: `agov policies plan: agents[0].rules[0]: no active rule ${world.writes.id}; remove its id to create it anew\n`,
    });
  });
});

describe('agov policies test', () => {
  const policies = join(dir, 'offline.yaml');
  const cases = join(dir, 'cases.yaml');
  const AGENT = '5b1f0000-0000-4000-8000-000000000001';

  beforeAll(() => {
    writeFileSync(
      policies,
      `agents:
  - name: ops
    id: ${AGENT}
    rules:
      - policy_name: Small refunds
        target_integration: stripe
        operation: refund
        resource_scope: refunds/*
        data_classification: confidential
        policy_effect: allow
        rationale: Refunds up to 100 are routine.
        priority: 20
        conditions: { "<=": [{ var: context.amount }, 100] }
        max_session_ttl: null
      - policy_name: Refunds
        target_integration: stripe
        operation: refund
        resource_scope: refunds/*
        data_classification: confidential
        policy_effect: approval_required
        rationale: Larger refunds need a person.
        priority: 10
        conditions: null
        max_session_ttl: null
      - policy_name: Production needs a person
        target_integration: stripe
        operation: refund
        resource_scope: refunds/*
        data_classification: confidential
        policy_effect: deny
        rationale: No refunds from production agents with high autonomy.
        priority: 30
        conditions: { "==": [{ var: agent.autonomy_tier }, high] }
        max_session_ttl: null
`,
    );
  });

  const refund = (amount: number) =>
    `{ operation: refund, target_integration: stripe, resource_scope: refunds/7, data_classification: confidential, context: { amount: ${amount} } }`;

  it('decides each case offline, with no service to call, and exits 1 on a mismatch', async () => {
    writeFileSync(
      cases,
      `cases:
  - name: small refund
    agent: ops
    request: ${refund(40)}
    expect: allow
    expect_rule: Small refunds
  - name: large refund
    agent: ${AGENT}
    request: ${refund(400)}
    expect: approval_required
  - name: high autonomy
    agent: ops
    agent_fields: { autonomy_tier: high }
    request: ${refund(40)}
    expect: deny
    expect_rule: Production needs a person
  - name: suspended
    agent_fields: { lifecycle_state: suspended }
    request: { agent_id: ${AGENT}, operation: refund, target_integration: stripe, resource_scope: refunds/7, data_classification: confidential }
    expect: deny
    expect_rule: null
  - name: wrong expectation
    agent: ops
    request: ${refund(400)}
    expect: allow
    expect_rule: Small refunds
  - name: unknown integration
    agent: ops
    request: { operation: refund, target_integration: paypal, resource_scope: refunds/7, data_classification: confidential }
    expect: allow
`,
    );
    // No AGOV_URL, no AGOV_API_KEY: nothing tells it where a service would be.
    expect(await agov(['policies', 'test', '-f', policies, '-t', cases])).toEqual({
      status: 1,
      stdout: [
        'pass  small refund: allow by "Small refunds"',
        'pass  large refund: approval_required by "Refunds"',
        'pass  high autonomy: deny by "Production needs a person"',
        'pass  suspended: deny by no rule',
        'FAIL  wrong expectation: expected allow by "Small refunds", got approval_required by "Refunds" (Larger refunds need a person.)',
        'FAIL  unknown integration: expected allow, got deny by no rule (No policy rule matched this action; denied by default)',
        '6 cases: 4 passed, 2 failed',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('counts the case’s own request alone in a history operator, as an agent’s first evaluation', async () => {
    const budget = join(dir, 'budget.yaml');
    writeFileSync(
      budget,
      `agents:
  - name: ops
    id: ${AGENT}
    rules:
      - policy_name: Refunds
        target_integration: stripe
        operation: refund
        resource_scope: refunds/*
        data_classification: confidential
        policy_effect: allow
        rationale: Refunds are routine.
        priority: 10
        conditions: null
        max_session_ttl: null
      - policy_name: Daily refund budget
        target_integration: stripe
        operation: refund
        resource_scope: refunds/*
        data_classification: confidential
        policy_effect: deny
        rationale: More than 150 of refunds a day is not routine.
        priority: 20
        conditions: { ">": [{ recent_sum: [context.amount, 24h] }, 150] }
        max_session_ttl: null
      - policy_name: Not even itself counted
        target_integration: stripe
        operation: refund
        resource_scope: refunds/*
        data_classification: confidential
        policy_effect: deny
        rationale: The request being decided always counts.
        priority: 30
        conditions: { "<": [{ recent_count: [1m] }, 1] }
        max_session_ttl: null
`,
    );
    writeFileSync(
      cases,
      `cases:
  - name: within the budget
    agent: ops
    request: ${refund(150)}
    expect: allow
    expect_rule: Refunds
  - name: past the budget on its own
    agent: ops
    request: ${refund(151)}
    expect: deny
    expect_rule: Daily refund budget
`,
    );
    expect(await agov(['policies', 'test', '-f', budget, '-t', cases])).toEqual({
      status: 0,
      stdout: [
        'pass  within the budget: allow by "Refunds"',
        'pass  past the budget on its own: deny by "Daily refund budget"',
        '2 cases: 2 passed, 0 failed',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('exits 0 when every case passes', async () => {
    writeFileSync(cases, `cases:\n  - name: small refund\n    agent: ops\n    request: ${refund(100)}\n    expect: allow\n`);
    expect(await agov(['policies', 'test', '-f', policies, '-t', cases])).toEqual({
      status: 0,
      stdout: 'pass  small refund: allow by "Small refunds"\n1 cases: 1 passed, 0 failed\n',
      stderr: '',
    });
  });

  it('exits 2 for bad usage, an unknown agent or an invalid condition', async () => {
    expect((await agov(['policies', 'test', '-f', policies])).status).toBe(2);
    writeFileSync(cases, `cases:\n  - name: nobody\n    agent: support\n    request: ${refund(1)}\n    expect: allow\n`);
    expect(await agov(['policies', 'test', '-f', policies, '-t', cases])).toEqual({
      status: 2,
      stdout: '',
      stderr: `agov policies test: ${cases}: cases[0].agent must name an agent of the policy file (by name or id), or request.agent_id its id\n`,
    });
    const invalid = join(dir, 'invalid.yaml');
    writeFileSync(invalid, readFileSync(policies, 'utf8').replace('"<=": [{ var: context.amount }, 100]', 'nope: [1]'));
    writeFileSync(cases, `cases:\n  - name: small refund\n    agent: ops\n    request: ${refund(1)}\n    expect: allow\n`);
    expect(await agov(['policies', 'test', '-f', invalid, '-t', cases])).toEqual({
      status: 2,
      stdout: '',
      stderr: `agov policies test: ${invalid}: Invalid agents[0].rules[0].conditions: agents[0].rules[0].conditions: unknown operator "nope"\n`,
    });
  });
});
