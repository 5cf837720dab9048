import { DATA_CLASSIFICATIONS, decideOffline, OFFLINE_AGENT_FIELDS, POLICY_EFFECTS, type OfflineAgentFields } from '@agov/domain';
import type { FileAgent } from './policy-file.js';
import { parseYaml, readText, UnreadableFile } from './policy-file.js';

/** One case of a cases file: an action of an agent of the policy file, and the decision it must get. */
export interface Case {
  name: string;
  agent: FileAgent;
  fields: OfflineAgentFields;
  request: { operation: string; target_integration: string; resource_scope: string; data_classification: string };
  context: Record<string, unknown>;
  expect: string;
  /** The rule expected to decide, by policy_name; null: none (a default deny or an inactive agent); undefined: not checked. */
  expectRule: string | null | undefined;
}

const CASE_FIELDS = ['name', 'agent', 'agent_fields', 'request', 'expect', 'expect_rule'];
const REQUEST_FIELDS = ['agent_id', 'operation', 'target_integration', 'resource_scope', 'data_classification', 'context'];
const LIFECYCLE_STATES = ['active', 'suspended', 'revoked'];

/** Reads a cases file against the policy file's agents; anything malformed is an UnreadableFile naming where. */
export function readCases(path: string, agents: readonly FileAgent[]): Case[] {
  const content = parseYaml(path, readText(path)).toJS() as unknown;
  const problem = (where: string, message: string) => new UnreadableFile(`${path}: ${where} ${message}`);
  if (!isObject(content) || !Array.isArray(content.cases)) throw problem('the file', 'must hold a list `cases`');
  return content.cases.map((item: unknown, index: number) => {
    const at = `cases[${index}]`;
    if (!isObject(item)) throw problem(at, 'must be a map');
    const unknown = Object.keys(item).find((key) => !CASE_FIELDS.includes(key));
    if (unknown) throw problem(`${at}.${unknown}`, 'is not a field of a case');
    if (typeof item.name !== 'string') throw problem(`${at}.name`, 'must be a string');
    const request = item.request;
    if (!isObject(request)) throw problem(`${at}.request`, "must be a map: evaluate's body");
    const extra = Object.keys(request).find((key) => !REQUEST_FIELDS.includes(key));
    if (extra) throw problem(`${at}.request.${extra}`, "is not a field of evaluate's body");
    for (const field of ['operation', 'target_integration', 'resource_scope'] as const) {
      if (typeof request[field] !== 'string') throw problem(`${at}.request.${field}`, 'must be a string');
    }
    if (!DATA_CLASSIFICATIONS.includes(request.data_classification as never)) {
      throw problem(`${at}.request.data_classification`, `must be one of ${DATA_CLASSIFICATIONS.join(', ')}`);
    }
    const context = request.context ?? {};
    if (!isObject(context)) throw problem(`${at}.request.context`, 'must be a map');
    const reference = item.agent ?? request.agent_id;
    const agent = agents.find(({ id, name }) => id === reference || name === reference);
    if (!agent) throw problem(`${at}.agent`, `must name an agent of the policy file (by name or id), or request.agent_id its id`);
    if (!POLICY_EFFECTS.includes(item.expect as never)) throw problem(`${at}.expect`, `must be one of ${POLICY_EFFECTS.join(', ')}`);
    if (item.expect_rule !== undefined && item.expect_rule !== null && typeof item.expect_rule !== 'string') {
      throw problem(`${at}.expect_rule`, "must be a rule's policy_name, or null for none");
    }
    return {
      name: item.name,
      agent,
      fields: agentFields(item.agent_fields ?? {}, `${at}.agent_fields`, problem),
      request: request as Case['request'],
      context,
      expect: item.expect as string,
      expectRule: item.expect_rule as string | null | undefined,
    };
  });
}

function agentFields(value: unknown, at: string, problem: (where: string, message: string) => Error): OfflineAgentFields {
  if (!isObject(value)) throw problem(at, 'must be a map');
  for (const [field, given] of Object.entries(value)) {
    if (!OFFLINE_AGENT_FIELDS.includes(field as never)) throw problem(`${at}.${field}`, `is not one of ${OFFLINE_AGENT_FIELDS.join(', ')}`);
    const valid = field === 'metadata' ? given === null || isObject(given) : typeof given === 'string';
    if (!valid) throw problem(`${at}.${field}`, field === 'metadata' ? 'must be a map or null' : 'must be a string');
  }
  if (value.lifecycle_state !== undefined && !LIFECYCLE_STATES.includes(value.lifecycle_state as string)) {
    throw problem(`${at}.lifecycle_state`, `must be one of ${LIFECYCLE_STATES.join(', ')}`);
  }
  return value as OfflineAgentFields;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface CaseResult {
  passed: boolean;
  line: string;
}

/** Decides a case as the service would, with the agent's rules from the file, and compares. */
export function runCase(test: Case, agentIndex: number): CaseResult {
  const decision = decideOffline(
    { id: test.agent.id, name: test.agent.name, fields: test.fields, rules: test.agent.rules },
    test.request,
    test.context,
    `agents[${agentIndex}].rules`,
  );
  const rule = decision.rule?.policyName ?? null;
  const got = `${decision.effect} ${rule === null ? 'by no rule' : `by "${rule}"`}`;
  const passed = decision.effect === test.expect && (test.expectRule === undefined || test.expectRule === rule);
  if (passed) return { passed, line: `pass  ${test.name}: ${got}` };
  const expected = `${test.expect}${test.expectRule === undefined ? '' : test.expectRule === null ? ' by no rule' : ` by "${test.expectRule}"`}`;
  return { passed, line: `FAIL  ${test.name}: expected ${expected}, got ${got} (${decision.reason})` };
}
