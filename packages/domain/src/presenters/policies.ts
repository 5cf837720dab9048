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
  modified_by: version.modifiedBy,
  modified_at: iso(version.modifiedAt),
  change_summary: version.changeSummary,
});
