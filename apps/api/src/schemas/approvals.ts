import { Type } from '@sinclair/typebox';
import { Body, JsonObjectOut, NullableTimestamp, PageQuery, StringEnum, Text, Timestamp } from './common.js';
import { TraceListItem } from './traces.js';

const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export const ApprovalStatus = StringEnum(APPROVAL_STATUSES);

export const ApprovalListQuery = Type.Object({
  status: Type.Optional(ApprovalStatus),
  agent_id: Type.Optional(Type.String({ format: 'uuid' })),
  ...PageQuery,
});

export const ApprovalStatusQuery = Type.Object({
  wait: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 60,
      description: 'Seconds to hold the answer while the request is pending: it comes as soon as the request is decided or expires',
    }),
  ),
});

export const ApprovalCountQuery = Type.Object({ status: Type.Optional(ApprovalStatus) });

export const DecisionBody = Body({
  approver_name: Text(200),
  decision_note: Type.Optional(Type.String({ maxLength: 2000 })),
});

const nullableString = Type.Union([Type.String(), Type.Null()]);

const ActionDigest = Type.String({
  pattern: '^sha256:[0-9a-f]{64}$',
  examples: ['sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e'],
  description:
    'sha256 of the JCS (RFC 8785) form of {agent_id, operation, target_integration, resource_scope, data_classification, context}, the action as the approval shows it (context {} when none): a tool can check that the action it runs is the one approved',
});

export const Approval = Type.Object(
  {
    id: Type.String(),
    trace_id: Type.String(),
    agent_id: Type.String(),
    requested_operation: Type.String(),
    target_integration: Type.String(),
    resource_scope: Type.String(),
    data_classification: Type.String(),
    risk_classification: StringEnum(['low', 'medium', 'high', 'critical']),
    authority_model: Type.String(),
    delegated_from: Type.String(),
    policy_effect: Type.String(),
    flag_reason: Type.String(),
    status: ApprovalStatus,
    context_snapshot: JsonObjectOut,
    action_digest: ActionDigest,
    expires_at: Timestamp,
    requested_at: Timestamp,
    decided_at: NullableTimestamp,
    approver_name: nullableString,
    decision_note: nullableString,
  },
  { title: 'Approval' },
);

export const ApprovalDetail = Type.Object(
  {
    ...Approval.properties,
    agent: Type.Union([
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        description: Type.String(),
        owner_name: Type.String(),
        team: Type.String(),
        environment: Type.String(),
        authority_model: Type.String(),
        autonomy_tier: Type.String(),
        lifecycle_state: Type.String(),
      }),
      Type.Null(),
    ]),
    trace: Type.Union([TraceListItem, Type.Null()]),
  },
  { title: 'ApprovalDetail' },
);

export const ApprovalStatusResponse = Type.Object(
  {
    id: Type.String(),
    status: ApprovalStatus,
    decided_at: NullableTimestamp,
    approver_name: nullableString,
    decision_note: nullableString,
    action_digest: ActionDigest,
  },
  { title: 'ApprovalStatus' },
);

export const ApprovalCount = Type.Object({ count: Type.Integer() }, { title: 'ApprovalCount' });
