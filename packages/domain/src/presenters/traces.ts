import type { ApprovalRow, TraceEventRow, TraceRow } from '@agov/db';
import { iso, isoOrNull } from './time.js';

const durationMs = (trace: TraceRow) => (trace.completedAt ? trace.completedAt.getTime() - trace.startedAt.getTime() : null);

/** The fields every trace shape shares. */
const traceCore = (trace: TraceRow) => ({
  id: trace.id,
  agent_id: trace.agentId,
  agent_name: trace.agentName,
  authority_model: trace.authorityModel,
  requested_operation: trace.requestedOperation,
  target_integration: trace.targetIntegration,
  resource_scope: trace.resourceScope,
});

const timing = (trace: TraceRow) => ({
  final_outcome: trace.finalOutcome,
  started_at: iso(trace.startedAt),
  completed_at: isoOrNull(trace.completedAt),
  duration_ms: durationMs(trace),
});

export const presentTraceListItem = (trace: TraceRow) => ({
  ...traceCore(trace),
  ...timing(trace),
  event_count: trace.eventCount,
  has_approval: trace.hasApproval,
});

/** Detail and export: the trace with its parent, without the list-only counters. */
export const presentTraceRecord = (trace: TraceRow) => ({
  ...traceCore(trace),
  parent_trace_id: trace.parentTraceId,
  ...timing(trace),
});

/** The detail view: the trace, its events in chain order, and where each of its approval requests stands. */
export const presentTraceDetail = ({
  trace,
  events,
  approvals,
}: {
  trace: TraceRow;
  events: readonly TraceEventRow[];
  approvals: readonly ApprovalRow[];
}) => ({
  ...presentTraceRecord(trace),
  events: events.map(presentEvent),
  approval_requests: approvals.map((approval) => ({
    id: approval.id,
    status: approval.status,
    approver_name: approval.approverName,
    decided_at: isoOrNull(approval.decidedAt),
  })),
});

/** What a check of a trace's hash chain found (traces/traces.ts verifies). */
export const presentVerification = (result: {
  traceId: string;
  valid: boolean;
  eventCount: number;
  verifiedAt: Date;
  firstInvalidEventId: string | null;
}) => ({
  trace_id: result.traceId,
  valid: result.valid,
  event_count: result.eventCount,
  verified_at: iso(result.verifiedAt),
  // Shown whenever the chain is broken; null when no event is left to name.
  ...(result.valid ? {} : { first_invalid_event: result.firstInvalidEventId }),
});

/** The event as the API shows it; exactly the hashed fields (less trace_id) and its hash. */
export const presentEvent = (event: TraceEventRow) => ({
  id: event.id,
  event_type: event.eventType,
  actor_type: event.actorType,
  actor_name: event.actorName,
  description: event.description,
  status: event.status,
  timestamp: iso(event.timestamp),
  policy_version: event.policyVersion,
  approval_request_id: event.approvalRequestId,
  metadata: event.metadata,
  integrity_hash: event.integrityHash,
});

/** The bulk export's columns, in the spec's order. */
export const TRACE_EXPORT_COLUMNS = [
  'trace_id',
  'agent_id',
  'agent_name',
  'operation',
  'target_integration',
  'resource_scope',
  'data_classification',
  'final_outcome',
  'started_at',
  'completed_at',
  'duration_ms',
  'approval_required',
  'approver_name',
  'approval_decision',
  'approval_decided_at',
  'policy_rule_id',
  'policy_version',
] as const;

/** The approval fields the bulk export shows beside its trace; null when there was none. */
export type ExportedApproval = Pick<ApprovalRow, 'status' | 'approverName' | 'decidedAt'> | null;

export const presentTraceExportRow = (
  trace: TraceRow,
  approval: ExportedApproval,
): Record<(typeof TRACE_EXPORT_COLUMNS)[number], string | number | boolean | null> => ({
  trace_id: trace.id,
  agent_id: trace.agentId,
  agent_name: trace.agentName,
  operation: trace.requestedOperation,
  target_integration: trace.targetIntegration,
  resource_scope: trace.resourceScope,
  data_classification: trace.dataClassification,
  final_outcome: trace.finalOutcome,
  started_at: iso(trace.startedAt),
  completed_at: isoOrNull(trace.completedAt),
  duration_ms: durationMs(trace),
  approval_required: trace.decision === 'approval_required',
  approver_name: approval?.approverName ?? null,
  // The request's status: pending, approved, denied or expired.
  approval_decision: approval?.status ?? null,
  approval_decided_at: approval ? isoOrNull(approval.decidedAt) : null,
  policy_rule_id: trace.policyRuleId,
  policy_version: trace.policyVersion,
});

/** The audit export's fields, in the spec's order; also the data of an `audit.event` webhook. */
export const AUDIT_EXPORT_COLUMNS = [
  'event_id',
  'trace_id',
  'agent_id',
  'event_type',
  'actor_type',
  'actor_name',
  'description',
  'status',
  'timestamp',
  'policy_version',
  'integrity_hash',
] as const;

export const presentAuditExportRow = (
  event: TraceEventRow,
  agentId: string,
): Record<(typeof AUDIT_EXPORT_COLUMNS)[number], string | number | null> => ({
  event_id: event.id,
  trace_id: event.traceId,
  agent_id: agentId,
  event_type: event.eventType,
  actor_type: event.actorType,
  actor_name: event.actorName,
  description: event.description,
  status: event.status,
  timestamp: iso(event.timestamp),
  policy_version: event.policyVersion,
  integrity_hash: event.integrityHash,
});

/** A single trace as a self-contained file: the trace, its full chain, its approvals. */
export const presentTraceExport = (
  trace: TraceRow,
  events: readonly TraceEventRow[],
  approvals: readonly ApprovalRow[],
  exportedAt: Date,
) => ({
  trace: presentTraceRecord(trace),
  events: events.map(presentEvent),
  approval_requests: approvals.map((approval) => ({
    id: approval.id,
    status: approval.status,
    flag_reason: approval.flagReason,
    approver_name: approval.approverName,
    decision_note: approval.decisionNote,
    decided_at: isoOrNull(approval.decidedAt),
  })),
  exported_at: iso(exportedAt),
});
