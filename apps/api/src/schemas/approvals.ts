import { Type } from '@sinclair/typebox';
import { Body, JsonObjectOut, NullableTimestamp, PageQuery, StringEnum, Text, Timestamp } from './common.js';
import { Email } from './identity.js';
import { GrantToken } from './grants.js';
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
  on_behalf_of: Type.Optional(
    Type.String({
      format: Email.format,
      maxLength: Email.maxLength,
      description: 'The e-mail of the reviewer whose vote this is, cast under their delegation to the signed-in caller',
    }),
  ),
});

const Vote = Type.Object(
  {
    decision: StringEnum(['approve', 'deny']),
    principal: Type.String({ description: 'Who cast the vote, as the service authenticated them' }),
    on_behalf_of: Type.Union([Type.String(), Type.Null()], { description: 'The reviewer whose delegated vote this is' }),
    approver_name: Type.String(),
    decision_note: Type.Union([Type.String(), Type.Null()]),
    at: Timestamp,
  },
  { title: 'ApprovalVote' },
);

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
    escalate_at: Type.Union([Timestamp, Type.Null()], {
      description:
        "When the escalation recipients are told if the request is still pending: its rule's escalate_after_seconds after it was made; null when the rule sets none or the request expires first",
    }),
    escalated_at: Type.Union([Timestamp, Type.Null()], { description: 'When the request was escalated; null until then' }),
    requested_at: Timestamp,
    decided_at: NullableTimestamp,
    approver_name: nullableString,
    decision_note: nullableString,
    approvals_required: Type.Integer({ minimum: 1, maximum: 5 }),
    votes: Type.Array(Vote, { description: 'Every vote cast, in order; approver_name and decided_at describe the deciding one' }),
  },
  { title: 'Approval' },
);

export const ApprovalDetail = Type.Object(
  {
    ...Approval.properties,
    grant: GrantToken,
    grant_expires_at: Type.Union([Timestamp, Type.Null()], { description: "The grant's `exp`; null without a grant" }),
    grant_redeemed_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the grant was redeemed; null until then, or without a grant',
    }),
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
    grant: GrantToken,
  },
  { title: 'ApprovalStatus' },
);

export const ApprovalCount = Type.Object({ count: Type.Integer() }, { title: 'ApprovalCount' });
