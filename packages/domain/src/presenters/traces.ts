import type { traces } from '@agov/db';
import type { TraceEventRow } from '../audit/events.js';
import type { ChainedEvent } from '../audit/hash-chain.js';
import { iso, isoOrNull } from './time.js';

export type TraceRow = typeof traces.$inferSelect;

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

/** What the hash covers, read back from storage. */
export const chainedFields = (event: TraceEventRow): ChainedEvent & { integrity_hash: string | null } => ({
  ...presentEvent(event),
  trace_id: event.traceId,
});
