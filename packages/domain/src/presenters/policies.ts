import { iso } from './time.js';
import type { PolicyRuleRow, PolicyVersionRow } from '@agov/db';

export const presentPolicy = (rule: PolicyRuleRow) => ({
  id: rule.id,
  agent_id: rule.agentId,
  policy_name: rule.policyName,
  target_integration: rule.targetIntegration,
  operation: rule.operation,
  resource_scope: rule.resourceScope,
  data_classification: rule.dataClassification,
  policy_effect: rule.policyEffect,
  rationale: rule.rationale,
  priority: rule.priority,
  conditions: rule.conditions ?? null,
  max_session_ttl: rule.maxSessionTtl,
  approvals_required: rule.approvalsRequired,
  escalate_after_seconds: rule.escalateAfterSeconds,
  mode: rule.mode,
  is_active: rule.isActive,
  policy_version: rule.policyVersion,
  modified_by: rule.modifiedBy,
  modified_at: iso(rule.modifiedAt),
  created_at: iso(rule.createdAt),
  updated_at: iso(rule.updatedAt),
});

export const presentPolicyVersion = (version: PolicyVersionRow) => ({
  id: version.id,
  policy_rule_id: version.policyRuleId,
  version: version.version,
  policy_name: version.policyName,
  operation: version.operation,
  target_integration: version.targetIntegration,
  resource_scope: version.resourceScope,
  data_classification: version.dataClassification,
  policy_effect: version.policyEffect,
  rationale: version.rationale,
  priority: version.priority,
  conditions: version.conditions ?? null,
  max_session_ttl: version.maxSessionTtl,
  approvals_required: version.approvalsRequired,
  escalate_after_seconds: version.escalateAfterSeconds,
  mode: version.mode,
  modified_by: version.modifiedBy,
  modified_at: iso(version.modifiedAt),
  change_summary: version.changeSummary,
});

/** One shadow rule's line of the shadow report (policy/shadow-report.ts builds it). */
export const presentShadowReportEntry = (entry: {
  rule: Pick<PolicyRuleRow, 'id' | 'policyName'>;
  wouldChange: number;
  transitions: readonly { from: PolicyRuleRow['policyEffect']; to: PolicyRuleRow['policyEffect']; count: number }[];
  sampleTraceIds: readonly string[];
}) => ({
  policy_rule_id: entry.rule.id,
  policy_name: entry.rule.policyName,
  would_change: entry.wouldChange,
  transitions: entry.transitions.map(({ from, to, count }) => ({ from, to, count })),
  sample_trace_ids: [...entry.sampleTraceIds],
});

/**
 * A policy simulation (simulation/simulate.ts). A rule the draft creates has no id yet: its
 * `policy_rule_id` is null and `change` is the index of its create in `changes`; `change` is null
 * for every other rule, and for no rule (a default deny, an inactive agent).
 */
export const presentSimulation = (simulation: {
  evaluated: number;
  changed: number;
  transitions: readonly { from: PolicyRuleRow['policyEffect']; to: PolicyRuleRow['policyEffect']; count: number }[];
  samples: readonly {
    traceId: string;
    from: PolicyRuleRow['policyEffect'];
    to: PolicyRuleRow['policyEffect'];
    rule: PolicyRuleRow | null;
  }[];
  rules: readonly { rule: PolicyRuleRow | null; changed: number }[];
  created: ReadonlyMap<PolicyRuleRow, number>;
}) => {
  const decidingRule = (rule: PolicyRuleRow | null) => {
    const change = rule ? simulation.created.get(rule) : undefined;
    return { policy_rule_id: change === undefined ? (rule?.id ?? null) : null, change: change ?? null };
  };
  return {
    evaluated: simulation.evaluated,
    changed: simulation.changed,
    transitions: simulation.transitions.map(({ from, to, count }) => ({ from, to, count })),
    samples: simulation.samples.map(({ traceId, from, to, rule }) => ({ trace_id: traceId, from, to, ...decidingRule(rule) })),
    rules: simulation.rules.map(({ rule, changed }) => ({ ...decidingRule(rule), changed })),
  };
};
