import { isDeepStrictEqual } from 'node:util';
import { EDITABLE_RULE_FIELDS, type PolicyRuleEdit } from '@agov/domain';
import { Refusal } from '../command.js';
import type { FileAgent, FileRule } from './policy-file.js';
import type { Service } from './service.js';

/** A rule as the service lists it (the fields the plan reads). */
export interface LiveRule extends PolicyRuleEdit {
  id: string;
  agent_id: string;
  created_at: string;
}

export interface LiveAgent {
  id: string;
  name: string;
}

/** The tenant's agents and active rules, read at one revision. */
export interface LiveRules {
  revision: string;
  agents: LiveAgent[];
  rules: LiveRule[];
}

/** The body of one change, as simulate and apply take it. */
export type Change =
  | { action: 'create'; rule: PolicyRuleEdit & { agent_id: string; modified_by: string; modified_at: string } }
  | { action: 'update'; policy_rule_id: string; rule: Partial<PolicyRuleEdit> }
  | { action: 'delete'; policy_rule_id: string };

/** One line of a plan: the change, the rule's name and agent, and for an update the fields that change. */
export interface PlannedChange {
  change: Change;
  agent: string;
  name: string;
  /** For an update: each changed field with its live and its new value. */
  fields: { field: keyof PolicyRuleEdit; from: unknown; to: unknown }[];
  /** For a create: where the rule sits in the file, so its id can be written back. */
  at?: { agent: number; rule: number };
}

export interface Plan {
  changes: PlannedChange[];
  unchanged: number;
}

/** Who the service records as the writer of a created rule's first version. */
const CREATED_BY = 'agov policies apply';
/** Reading the lists again when the rules changed meanwhile; more than this means they keep changing. */
const READ_ATTEMPTS = 3;
const PAGE = 100;

/**
 * The tenant's agents and active rules at one revision: the revision is read before and after
 * the lists, and the lists again when it moved. Agents come by name, then id; rules by age, then
 * id, so a pulled file lists them in a stable order and new rules come last.
 */
export async function readLiveRules(service: Service): Promise<LiveRules> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const revision = await readRevision(service);
    const [agents, rules] = await Promise.all([
      readAll<LiveAgent>(service, '/api/v1/agents?'),
      readAll<LiveRule>(service, '/api/v1/policies?is_active=true&'),
    ]);
    if ((await readRevision(service)) !== revision) continue;
    agents.sort((a, b) => compareText(a.name, b.name) || compareText(a.id, b.id));
    rules.sort((a, b) => compareText(a.created_at, b.created_at) || compareText(a.id, b.id));
    return { revision, agents, rules };
  }
  throw new Refusal(`the rules changed while they were read, ${READ_ATTEMPTS} times: try again`);
}

export const readRevision = async (service: Service) =>
  (await service.get<{ data: { revision: string } }>('/api/v1/policies/revision')).data.revision;

async function readAll<T>(service: Service, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await service.get<{ data: T[]; pagination: { total: number } }>(`${path}limit=${PAGE}&offset=${offset}`);
    items.push(...page.data);
    if (page.data.length < PAGE || items.length >= page.pagination.total) return items;
  }
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The live rules as a policy file holds them: every agent, each with its active rules. */
export function asPolicyFile({ agents, rules }: LiveRules): FileAgent[] {
  return agents.map((agent) => ({
    name: agent.name,
    id: agent.id,
    rules: rules.filter((rule) => rule.agent_id === agent.id).map(fileRule),
  }));
}

const fileRule = (rule: LiveRule): FileRule => ({
  id: rule.id,
  // Every editable field, and none of the service's own (version, timestamps, modified_by).
  ...(Object.fromEntries(EDITABLE_RULE_FIELDS.map((field) => [field, rule[field]])) as unknown as PolicyRuleEdit),
});

/**
 * What makes the live rules equal the file: a create for each rule without an id, an update of
 * the changed fields of each rule whose values differ, a delete for each live rule the file
 * leaves out; in the file's order, deletes last. An agent or a rule id the tenant does not have
 * live (or a rule listed under another agent than its own) is refused: the file is out of date.
 */
export function planOf(file: readonly FileAgent[], live: LiveRules, now: Date): Plan {
  const agents = new Map(live.agents.map((agent) => [agent.id, agent]));
  const rules = new Map(live.rules.map((rule) => [rule.id, rule]));
  const kept = new Set<string>();
  const changes: PlannedChange[] = [];
  let unchanged = 0;
  file.forEach((agent, a) => {
    if (!agents.has(agent.id)) throw new Refusal(`agents[${a}]: the tenant has no agent ${agent.id} ("${agent.name}")`);
    agent.rules.forEach((rule, r) => {
      const { id, ...fields } = rule;
      if (id === undefined) {
        const body = { ...fields, agent_id: agent.id, modified_by: CREATED_BY, modified_at: now.toISOString() };
        changes.push({
          change: { action: 'create', rule: body },
          agent: agent.name,
          name: rule.policy_name,
          fields: [],
          at: { agent: a, rule: r },
        });
        return;
      }
      const current = rules.get(id);
      if (!current) throw new Refusal(`agents[${a}].rules[${r}]: no active rule ${id}; remove its id to create it anew`);
      if (current.agent_id !== agent.id) throw new Refusal(`agents[${a}].rules[${r}]: rule ${id} is of another agent`);
      kept.add(id);
      const changed = EDITABLE_RULE_FIELDS.filter((field) => !isDeepStrictEqual(fields[field], current[field]));
      if (changed.length === 0) {
        unchanged += 1;
        return;
      }
      changes.push({
        change: { action: 'update', policy_rule_id: id, rule: Object.fromEntries(changed.map((field) => [field, fields[field]])) },
        agent: agent.name,
        name: rule.policy_name,
        fields: changed.map((field) => ({ field, from: current[field], to: fields[field] })),
      });
    });
  });
  for (const rule of live.rules) {
    if (kept.has(rule.id)) continue;
    const agent = agents.get(rule.agent_id)?.name ?? rule.agent_id;
    changes.push({ change: { action: 'delete', policy_rule_id: rule.id }, agent, name: rule.policy_name, fields: [] });
  }
  return { changes, unchanged };
}

/** The plan in lines: one per change, then the counts. */
export function describePlan({ changes, unchanged }: Plan): string[] {
  const lines = changes.map(({ change, agent, name, fields }) => {
    const rule = `"${name}" of agent "${agent}"`;
    if (change.action === 'create') return `  create  ${rule}`;
    if (change.action === 'delete') return `  delete  ${rule} (${change.policy_rule_id})`;
    const changed = fields.map(({ field, from, to }) => `${field} ${JSON.stringify(from)} -> ${JSON.stringify(to)}`);
    return `  update  ${rule} (${change.policy_rule_id}): ${changed.join(', ')}`;
  });
  const count = (action: Change['action']) => changes.filter(({ change }) => change.action === action).length;
  return [...lines, `${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete, ${unchanged} unchanged`];
}
