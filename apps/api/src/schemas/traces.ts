import { Type } from '@sinclair/typebox';
import { Body, Freeform, JsonObjectOut, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.js';

export const FinalOutcome = StringEnum(['in_progress', 'executed', 'blocked', 'denied', 'completed_with_approval', 'expired']);

export const TraceIdParams = Type.Object({ traceId: Type.String({ format: 'uuid' }) });

/** A range bound: an ISO 8601 date-time, or a calendar date covering that whole day (UTC). */
export const TimeBound = Type.Unsafe<string>({
  type: 'string',
  anyOf: [{ format: 'date-time' }, { format: 'date' }],
  description: 'ISO 8601 date-time, or a date (YYYY-MM-DD) meaning that whole day in UTC',
});

export const TraceListQuery = Type.Object({
  agent_id: Type.Optional(Type.String({ format: 'uuid' })),
  outcome: Type.Optional(FinalOutcome),
  from: Type.Optional(TimeBound),
  to: Type.Optional(TimeBound),
  ...PageQuery,
});

export const OutcomeBody = Body({
  status: StringEnum(['success', 'error']),
  metadata: Type.Optional(Freeform),
});

export const TraceExportQuery = Type.Object({
  from: TimeBound,
  to: TimeBound,
  format: StringEnum(['csv']),
  agent_id: Type.Optional(Type.String({ format: 'uuid' })),
});

export const AuditExportQuery = Type.Object({
  from: TimeBound,
  to: TimeBound,
  format: StringEnum(['json', 'csv'], { default: 'json' }),
});

const traceCore = {
  id: Type.String(),
  agent_id: Type.String(),
  agent_name: Type.String(),
  authority_model: Type.String(),
  requested_operation: Type.String(),
  target_integration: Type.String(),
  resource_scope: Type.String(),
};
const timing = {
  final_outcome: FinalOutcome,
  started_at: Timestamp,
  completed_at: NullableTimestamp,
  duration_ms: Type.Union([Type.Number(), Type.Null()]),
};

export const TraceListItem = Type.Object(
  { ...traceCore, ...timing, event_count: Type.Integer(), has_approval: Type.Boolean() },
  { title: 'TraceSummary' },
);

export const TraceRecord = Type.Object(
  { ...traceCore, parent_trace_id: Type.Union([Type.String(), Type.Null()]), ...timing },
  { title: 'Trace' },
);

export const AuditEvent = Type.Object(
  {
    id: Type.String(),
    event_type: Type.String(),
    actor_type: Type.String(),
    actor_name: Type.String(),
    description: Type.String(),
    status: Type.String(),
    timestamp: Timestamp,
    policy_version: Type.Union([Type.Integer(), Type.Null()]),
    approval_request_id: Type.Union([Type.String(), Type.Null()]),
    metadata: JsonObjectOut,
    integrity_hash: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'TraceEvent' },
);

const TraceApprovalSummary = {
  id: Type.String(),
  status: Type.String(),
  approver_name: Type.Union([Type.String(), Type.Null()]),
  decided_at: NullableTimestamp,
};

export const TraceDetail = Type.Object(
  {
    ...TraceRecord.properties,
    events: Type.Array(AuditEvent),
    approval_requests: Type.Array(Type.Object(TraceApprovalSummary)),
  },
  { title: 'TraceDetail' },
);

export const TraceExport = Type.Object(
  {
    trace: TraceRecord,
    events: Type.Array(AuditEvent),
    approval_requests: Type.Array(
      Type.Object({
        ...TraceApprovalSummary,
        flag_reason: Type.String(),
        decision_note: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    exported_at: Timestamp,
  },
  { title: 'TraceExport' },
);

export const Verification = Type.Object(
  {
    trace_id: Type.String(),
    valid: Type.Boolean(),
    event_count: Type.Integer(),
    verified_at: Timestamp,
    first_invalid_event: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { title: 'Verification' },
);
