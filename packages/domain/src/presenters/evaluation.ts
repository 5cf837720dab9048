import type { ApprovalRow, PolicyRuleRow, TraceRow } from '@agov/db';

/** A decision as evaluate answers it (evaluation/evaluate.ts decides and records it). */
export const presentEvaluation = (result: {
  decision: TraceRow['decision'];
  traceId: string;
  approvalRequestId: string | null;
  reason: string;
  policyRuleId: string | null;
  risk: ApprovalRow['riskClassification'] | null;
  grant: string | null;
}) => ({
  decision: result.decision,
  trace_id: result.traceId,
  approval_request_id: result.approvalRequestId,
  reason: result.reason,
  policy_rule_id: result.policyRuleId,
  // Only a decision that asks for approval has been classified.
  ...(result.risk ? { risk_classification: result.risk } : {}),
  // Only an `allow` of a tenant that asks for grants carries one.
  ...(result.grant ? { grant: result.grant } : {}),
});

/** The dry run's answer: what evaluate would decide, and by which rule (evaluation/decide.ts). */
export const presentDryRun = (decision: {
  effect: PolicyRuleRow['policyEffect'];
  rule: Pick<PolicyRuleRow, 'id' | 'policyVersion'> | null;
  reason: string;
}) => ({
  effect: decision.effect,
  rule_id: decision.rule?.id ?? null,
  rationale: decision.reason,
  policy_version: decision.rule?.policyVersion ?? null,
});
