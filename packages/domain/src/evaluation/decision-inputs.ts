import type { AgentRow, PolicyRuleRow } from '@agov/db';
import type { DecisionInputs } from '../caches/decision-inputs.js';
import { orderRules } from '../policy/matching.js';
import { presentAgent } from '../presenters/agents.js';

/**
 * The agent fields that decide beside the rules (its state) and that identity_resolved records,
 * API name and column, in the order the simulation reads them back.
 */
export const AGENT_STATE_FIELDS = [
  ['lifecycle_state', 'lifecycleState'],
  ['authority_model', 'authorityModel'],
  ['identity_mode', 'identityMode'],
  ['delegation_model', 'delegationModel'],
  ['autonomy_tier', 'autonomyTier'],
  ['environment', 'environment'],
] as const satisfies readonly (readonly [string, keyof AgentRow])[];

/**
 * What deciding for `agent` needs, from its active rules in any order: evaluate's cache, the
 * what-if and the offline `policies test` all build their inputs here, so they decide alike.
 */
export const decisionInputsOf = (agent: AgentRow, activeRules: readonly PolicyRuleRow[]): DecisionInputs => ({
  agent,
  agentView: presentAgent(agent),
  rules: orderRules(activeRules.filter((rule) => rule.mode === 'enforce')),
  shadowRules: orderRules(activeRules.filter((rule) => rule.mode === 'shadow')),
});
