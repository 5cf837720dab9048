import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isScalar, isSeq, parseDocument, YAMLMap, type YAMLSeq } from 'yaml';
import {
  DATA_CLASSIFICATIONS,
  EDITABLE_RULE_FIELDS,
  POLICY_EFFECTS,
  RULE_CREATE_DEFAULTS,
  RULE_MODES,
  taggedSha256,
  type PolicyRuleEdit,
} from '@agov/domain';

/** A rule as the file holds it: the fields a PATCH may change, and its id once it exists. */
export interface FileRule extends PolicyRuleEdit {
  id?: string;
}

export interface FileAgent {
  name: string;
  id: string;
  rules: FileRule[];
}

/** A policy file read: its agents, the YAML document (with its comments) and the SHA-256 of its bytes. */
export interface PolicyFile {
  path: string;
  agents: FileAgent[];
  document: Document;
  digest: string;
}

/** A file that cannot be read, is not YAML or is not a policy file: bad usage (exit 2). */
export class UnreadableFile extends Error {}

const HEADER = ` Policy rules, as \`agov policies pull\` writes them: one entry per agent, each with its rules.
 Edit, then \`agov policies plan -f FILE\` and \`agov policies apply -f FILE\`; a rule without
 an id is created. Comments are kept by apply and pull.`;

/** Reads a file as text, or says why it cannot (exit 2). */
export function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UnreadableFile(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Parses YAML keeping its comments; a syntax error names its line. */
export function parseYaml(path: string, text: string): Document {
  const document = parseDocument(text);
  const [error] = document.errors;
  if (error) throw new UnreadableFile(`${path} is not YAML: ${error.message.split('\n')[0]}`);
  return document;
}

/** An existing file to pull into: YAML whose top is a map (its content is replaced, its comments kept). */
export function readPolicyDocument(path: string): Document {
  const document = parseYaml(path, readText(path));
  if (document.contents !== null && !isMap(document.contents))
    throw new UnreadableFile(`${path} is not a policy file: its top is not a map`);
  return document;
}

export function readPolicyFile(path: string): PolicyFile {
  const text = readText(path);
  const document = parseYaml(path, text);
  return {
    path,
    agents: policyContent(path, document.toJS()),
    document,
    digest: taggedSha256(text),
  };
}

const REQUIRED_FIELDS = EDITABLE_RULE_FIELDS.filter((field) => !(field in RULE_CREATE_DEFAULTS));

/**
 * Each field's check, by the create body's rules, in the order the file writes them (the body's); the
 * service checks the rest (lengths, condition operators) on apply.
 */
const FIELD_CHECKS: Record<keyof PolicyRuleEdit, (value: unknown) => string | null> = {
  policy_name: text,
  target_integration: text,
  operation: text,
  resource_scope: text,
  data_classification: oneOf(DATA_CLASSIFICATIONS),
  policy_effect: oneOf(POLICY_EFFECTS),
  rationale: text,
  priority: (value) => (Number.isInteger(value) ? null : 'must be an integer'),
  conditions: (value) => (value === null || (typeof value === 'object' && !Array.isArray(value)) ? null : 'must be an object or null'),
  max_session_ttl: integerOrNull,
  approvals_required: (value) => (Number.isInteger(value) ? null : 'must be an integer'),
  escalate_after_seconds: integerOrNull,
  mode: oneOf(RULE_MODES),
};

function text(value: unknown) {
  return typeof value === 'string' ? null : 'must be a string';
}
function integerOrNull(value: unknown) {
  return value === null || Number.isInteger(value) ? null : 'must be an integer or null';
}
function oneOf(values: readonly string[]) {
  return (value: unknown) => (typeof value === 'string' && values.includes(value) ? null : `must be one of ${values.join(', ')}`);
}

/** The file's agents and rules, with the create body's defaults for what a rule leaves out. */
function policyContent(path: string, content: unknown): FileAgent[] {
  const problem = (where: string, message: string) => new UnreadableFile(`${path}: ${where} ${message}`);
  if (!isObject(content) || !Array.isArray(content.agents)) throw problem('the file', 'must hold a list `agents`');
  const unknownTop = Object.keys(content).find((key) => key !== 'agents');
  if (unknownTop) throw problem(unknownTop, 'is not a field of a policy file');
  const seenRules = new Set<string>();
  return content.agents.map((agent: unknown, a: number) => {
    const at = `agents[${a}]`;
    if (!isObject(agent)) throw problem(at, 'must be a map with name, id and rules');
    const unknownField = Object.keys(agent).find((key) => !['name', 'id', 'rules'].includes(key));
    if (unknownField) throw problem(`${at}.${unknownField}`, 'is not a field of an agent entry');
    if (typeof agent.id !== 'string') throw problem(`${at}.id`, "must be the agent's id");
    if (typeof agent.name !== 'string') throw problem(`${at}.name`, "must be the agent's name");
    const rules = agent.rules ?? [];
    if (!Array.isArray(rules)) throw problem(`${at}.rules`, 'must be a list');
    return {
      name: agent.name,
      id: agent.id,
      rules: rules.map((rule: unknown, r: number) => {
        const ruleAt = `${at}.rules[${r}]`;
        if (!isObject(rule)) throw problem(ruleAt, 'must be a map of rule fields');
        for (const [field, value] of Object.entries(rule)) {
          if (field === 'id') {
            if (typeof value !== 'string') throw problem(`${ruleAt}.id`, 'must be the id of a rule');
            if (seenRules.has(value)) throw problem(`${ruleAt}.id`, 'names a rule listed before');
            seenRules.add(value);
            continue;
          }
          const check = FIELD_CHECKS[field as keyof PolicyRuleEdit];
          if (!check) throw problem(`${ruleAt}.${field}`, 'is not a field of a rule');
          const wrong = check(value);
          if (wrong) throw problem(`${ruleAt}.${field}`, wrong);
        }
        const missing = REQUIRED_FIELDS.find((field) => !(field in rule));
        if (missing) throw problem(`${ruleAt}.${missing}`, 'is missing');
        return { ...RULE_CREATE_DEFAULTS, ...rule } as FileRule;
      }),
    };
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The rules pulled, written into `existing` (a policy file's document) where one is given, so
 * that its comments stay on the entries, fields and values that are still there; a new document
 * otherwise. Agents and rules are matched by id; a field whose value did not change keeps its node.
 */
export function pulledDocument(agents: readonly FileAgent[], existing: Document | null): Document {
  const document = existing ?? new Document({ agents: [] });
  if (!existing) document.commentBefore = HEADER;
  // An empty existing file has no top map yet.
  const top = isMap(document.contents) ? document.contents : (document.createNode({}) as YAMLMap);
  document.contents = top;
  const agentsNode = listAt(document, top, 'agents');
  const agentNodes = byId(agentsNode);
  agentsNode.items = agents.map((agent) => {
    const node = agentNodes.get(agent.id) ?? new YAMLMap();
    setField(document, node, 'name', agent.name);
    setField(document, node, 'id', agent.id);
    const rulesNode = listAt(document, node, 'rules');
    const ruleNodes = byId(rulesNode);
    rulesNode.items = agent.rules.map((rule) => {
      const ruleNode = (rule.id && ruleNodes.get(rule.id)) || new YAMLMap();
      for (const field of ['id', ...(Object.keys(FIELD_CHECKS) as (keyof PolicyRuleEdit)[])] as const)
        setField(document, ruleNode, field, rule[field]);
      return ruleNode;
    });
    return node;
  });
  return document;
}

/** Gives the rule at `agents[agent].rules[rule]` of the document its new id, first among its fields. */
export function recordCreatedId(document: Document, agent: number, rule: number, id: string): void {
  const node = document.getIn(['agents', agent, 'rules', rule]);
  if (isMap(node)) node.items.unshift(document.createPair('id', id));
}

/** The list under `key` of `map`, made an empty one when it is not a list. */
function listAt(document: Document, map: YAMLMap, key: string): YAMLSeq {
  const node = map.get(key, true);
  if (isSeq(node)) return node;
  const list = document.createNode([]) as YAMLSeq;
  map.set(key, list);
  return list;
}

/** The map entries of a list, by their `id`. */
function byId(list: YAMLSeq): Map<string, YAMLMap> {
  const found = new Map<string, YAMLMap>();
  for (const item of list.items) {
    const id = isMap(item) ? item.get('id') : undefined;
    if (isMap(item) && typeof id === 'string') found.set(id, item);
  }
  return found;
}

/** Sets a field, keeping its node (and so its comments) when the value is unchanged or a scalar. */
function setField(document: Document, map: YAMLMap, key: string, value: unknown): void {
  const current = map.get(key, true);
  if (current !== undefined && isDeepStrictEqual((current as { toJSON(): unknown }).toJSON?.() ?? current, value)) return;
  if (isScalar(current) && (value === null || typeof value !== 'object')) {
    current.value = value;
    return;
  }
  map.set(key, document.createNode(value));
}
