import type { AgentRow, PolicyRuleRow } from '@agov/db';
import { entryOf } from '../history/entries.js';
import { historyTermsOf } from '../history/read.js';
import { HistoryReplay } from '../history/replay.js';
import { assertValidRuleInput, createdColumns, type PolicyRuleEdit } from '../policy/rule-store.js';
import type { ActionRequest } from '../policy/matching.js';
import { decide, type Decision } from './decide.js';
import { AGENT_STATE_FIELDS, decisionInputsOf } from './decision-inputs.js';

/** The agent fields a case may set beside its rules: its state, and `metadata` for conditions that read it. */
export type OfflineAgentFields = Partial<Record<(typeof AGENT_STATE_FIELDS)[number][0], string>> & {
  metadata?: Record<string, unknown> | null;
};

/** The agent fields a case may set, by API name. */
export const OFFLINE_AGENT_FIELDS: readonly (keyof OfflineAgentFields)[] = [...AGENT_STATE_FIELDS.map(([field]) => field), 'metadata'];

export interface OfflineAgent {
  id: string;
  name: string;
  fields: OfflineAgentFields;
  /** Its rules as a policy file holds them, in the file's order; `id` when the file kept one. */
  rules: readonly (PolicyRuleEdit & { id?: string })[];
}

/**
 * What the service would decide for `agent` with exactly these rules, with `decide` itself and
 * nothing read from anywhere: for testing a policy file before it is applied. Rules are built by
 * the rule store's own `createdColumns` and checked by `assertValidRuleInput` (an invalid
 * condition throws, naming its place under `rulesField`); the agent is `active` with empty text
 * fields unless `fields` says otherwise; history operators count the request alone. Rules keep the file's order as their age, so on ties the one listed first ranks
 * first, as the oldest does in the service.
 */
export function decideOffline(
  agent: OfflineAgent,
  request: ActionRequest,
  context: Record<string, unknown>,
  /** Where the agent's rules are in the file, to name an invalid condition: `agents[0].rules`. */
  rulesField: string,
): Decision {
  const epoch = new Date(0);
  const rules: PolicyRuleRow[] = agent.rules.map(({ id, ...rule }, index) => {
    assertValidRuleInput(rule, `${rulesField}[${index}].conditions`);
    // The file's order as creation order: one millisecond apart.
    const createdAt = new Date(index);
    return {
      ...createdColumns('', { ...rule, agent_id: agent.id, modified_by: '', modified_at: epoch.toISOString() }, createdAt),
      id: id ?? `00000000-0000-0000-0000-${index.toString(16).padStart(12, '0')}`,
      isActive: true,
      policyVersion: 1,
    };
  });
  const inputs = decisionInputsOf(offlineAgentRow(agent), rules);
  // Offline nothing was recorded: history operators see the case's own request alone.
  const terms = historyTermsOf(inputs);
  const history = terms.length === 0 ? undefined : new HistoryReplay().valuesFor(agent.id, terms, entryOf(0, request, context));
  return decide(inputs, request, context, history);
}

/** The agent as a row: the case's fields over an active agent whose other fields are empty. */
function offlineAgentRow({ id, name, fields }: OfflineAgent): AgentRow {
  const row: AgentRow = {
    id,
    tenantId: '',
    name,
    description: '',
    ownerName: '',
    ownerRole: '',
    team: '',
    environment: '',
    authorityModel: '',
    identityMode: '',
    delegationModel: '',
    autonomyTier: '',
    authorizedIntegrations: [],
    credentialConfig: null,
    metadata: fields.metadata ?? null,
    nextReviewDate: '',
    createdBy: '',
    createdByIdentity: null,
    modifiedBy: '',
    modifiedAt: new Date(0),
    lifecycleState: 'active',
    maxRequestsPerMinute: null,
    maxIdenticalRequestsPerMinute: null,
    throttleEffect: 'deny',
    stateId: 0,
    createdAt: new Date(0),
  };
  for (const [field, column] of AGENT_STATE_FIELDS) {
    const value = fields[field];
    if (value !== undefined) (row as Record<string, unknown>)[column] = value;
  }
  return row;
}
