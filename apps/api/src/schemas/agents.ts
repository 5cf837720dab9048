import { Type } from '@sinclair/typebox';
import { AGENT_ENVIRONMENTS, AUTHORITY_MODELS, AUTONOMY_TIERS, DELEGATION_MODELS, IDENTITY_MODES, LIFECYCLE_STATES } from '@agov/domain';
import {
  Body,
  DataClassification,
  JsonObjectOut,
  NullableFreeform,
  NullableTimestamp,
  PageQuery,
  PatchBody,
  StringEnum,
  Text,
  Timestamp,
} from './common.js';

/** A search term: matched as a case-insensitive substring; empty means no filter. */
export const SearchQuery = Type.String({ maxLength: 200 });

const AuthorizedIntegration = Body({
  name: Text(200),
  resource_scope: Text(1000),
  data_classification: DataClassification,
  allowed_operations: Type.Array(Text(200), { maxItems: 100 }),
});

const agentFields = {
  name: Text(200),
  description: Text(2000),
  owner_name: Text(200),
  owner_role: Text(200),
  team: Text(200),
  environment: StringEnum(AGENT_ENVIRONMENTS),
  authority_model: StringEnum(AUTHORITY_MODELS),
  identity_mode: StringEnum(IDENTITY_MODES),
  delegation_model: StringEnum(DELEGATION_MODELS),
  autonomy_tier: StringEnum(AUTONOMY_TIERS),
  authorized_integrations: Type.Array(AuthorizedIntegration, { maxItems: 100 }),
  credential_config: NullableFreeform,
  metadata: NullableFreeform,
  /** A calendar date (2026-12-31) or a date-time. */
  next_review_date: Type.Union([Type.String({ format: 'date' }), Timestamp]),
  created_by: Text(200),
  modified_by: Text(200),
  modified_at: Timestamp,
};

/** A per-minute limit: a whole number of evaluations, or null for none. */
const PerMinuteLimit = (description: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], { description });

const THROTTLE_EFFECTS = ['approval_required', 'deny'] as const;

/**
 * The throttle (CONTRACT "Policy lifecycle decisions"), beyond the spec's fields: optional on
 * create (no limits, `deny`), and kept by a PATCH that leaves them out, so no `default` keyword.
 */
const throttleFields = {
  max_requests_per_minute: Type.Optional(
    PerMinuteLimit('Evaluations of this agent admitted in any 60 s before its throttle_effect applies; null (default): no limit'),
  ),
  max_identical_requests_per_minute: Type.Optional(
    PerMinuteLimit('The same for one identical action (same action_digest): the loop guard; null (default): no limit'),
  ),
  throttle_effect: Type.Optional(
    StringEnum(THROTTLE_EFFECTS, { description: 'The decision of a request past either limit; deny when left out on create' }),
  ),
};

export const CreateAgentBody = Body({ ...agentFields, ...throttleFields });
export const UpdateAgentBody = PatchBody({ ...agentFields, ...throttleFields });

export const AgentListQuery = Type.Object({
  ...PageQuery,
  environment: Type.Optional(StringEnum(AGENT_ENVIRONMENTS)),
  lifecycle_state: Type.Optional(StringEnum(LIFECYCLE_STATES)),
  authority_model: Type.Optional(StringEnum(AUTHORITY_MODELS)),
  autonomy_tier: Type.Optional(StringEnum(AUTONOMY_TIERS)),
  search: Type.Optional(SearchQuery),
});

const agentOut = {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  owner_name: Type.String(),
  owner_role: Type.String(),
  team: Type.String(),
  environment: Type.String(),
  authority_model: Type.String(),
  identity_mode: Type.String(),
  delegation_model: Type.String(),
  autonomy_tier: Type.String(),
  authorized_integrations: Type.Array(
    Type.Object({
      name: Type.String(),
      resource_scope: Type.String(),
      data_classification: Type.String(),
      allowed_operations: Type.Array(Type.String()),
    }),
  ),
  credential_config: JsonObjectOut,
  metadata: JsonObjectOut,
  next_review_date: Type.String(),
  created_by: Type.String(),
  modified_by: Type.String(),
  modified_at: Timestamp,
  lifecycle_state: StringEnum(LIFECYCLE_STATES),
  max_requests_per_minute: Type.Union([Type.Integer(), Type.Null()]),
  max_identical_requests_per_minute: Type.Union([Type.Integer(), Type.Null()]),
  throttle_effect: StringEnum(THROTTLE_EFFECTS),
  created_at: Timestamp,
};

export const Agent = Type.Object(agentOut, { title: 'Agent' });

const Count = Type.Integer({ minimum: 0 });

/** A limit a rule's condition sets on a history operator (CONTRACT, "Policy lifecycle decisions"); `budget.threshold` carries the same fields. */
const budget = {
  policy_rule_id: Type.String({ format: 'uuid' }),
  policy_name: Type.String(),
  expression: Type.Object({}, { additionalProperties: true, description: 'The history operator as the rule writes it.' }),
};

export const AgentDetail = Type.Object(
  {
    ...agentOut,
    stats: Type.Object({
      recent_traces: Type.Array(
        Type.Object({
          id: Type.String(),
          requested_operation: Type.String(),
          target_integration: Type.String(),
          resource_scope: Type.String(),
          final_outcome: Type.String(),
          started_at: Timestamp,
          completed_at: NullableTimestamp,
        }),
      ),
      approval_counts: Type.Object({ pending: Count, approved: Count, denied: Count, expired: Count }),
      decisions_last_24h: Type.Object({ allow: Count, approval_required: Count, deny: Count }),
      trace_count: Count,
      budgets: Type.Array(
        Type.Object({
          ...budget,
          used: Type.Union([Type.Number(), Type.Null()], { description: 'Its value now; null while the history counters cannot answer.' }),
          limit: Type.Number(),
        }),
        { description: "Each comparison of a history operator with a positive number in the agent's enforced rules, in evaluation order." },
      ),
    }),
  },
  { title: 'AgentDetail' },
);
