import type { approvalRequests } from '@agov/db';
import { iso, isoOrNull } from './time.js';

export type ApprovalRow = typeof approvalRequests.$inferSelect;

export const presentApproval = (approval: ApprovalRow) => ({
  id: approval.id,
  trace_id: approval.traceId,
  agent_id: approval.agentId,
  requested_operation: approval.requestedOperation,
  target_integration: approval.targetIntegration,
  resource_scope: approval.resourceScope,
  data_classification: approval.dataClassification,
  risk_classification: approval.riskClassification,
  authority_model: approval.authorityModel,
  delegated_from: approval.delegatedFrom,
  policy_effect: approval.policyEffect,
  flag_reason: approval.flagReason,
  status: approval.status,
  context_snapshot: approval.contextSnapshot,
  expires_at: iso(approval.expiresAt),
  requested_at: iso(approval.requestedAt),
  decided_at: isoOrNull(approval.decidedAt),
  approver_name: approval.approverName,
  decision_note: approval.decisionNote,
});
