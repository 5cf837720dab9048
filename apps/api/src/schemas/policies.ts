import { Type } from '@sinclair/typebox';
import { SearchQuery } from './agents.js';
import {
  Body,
  DataClassification,
  Effect,
  Int32,
  JsonObjectOut,
  NullableFreeform,
  PageQuery,
  PatchBody,
  Text,
  Timestamp,
} from './common.js';

const PolicyEffect = Effect;

/** The fields a PATCH may change. */
const editableFields = {
  policy_name: Text(200),
  target_integration: Text(200),
  operation: Text(200),
  resource_scope: Text(1000),
  data_classification: DataClassification,
  policy_effect: PolicyEffect,
  rationale: Type.String({ minLength: 10, maxLength: 1000, examples: ['Refunds above 500 EUR need a person to look first'] }),
  priority: Int32(),
  conditions: NullableFreeform,
  /** Approval time-to-live in seconds; null means the tenant default. */
  max_session_ttl: Type.Union([Int32({ minimum: 1 }), Type.Null()]),
};

export const CreatePolicyBody = Body({
  agent_id: Type.String({ format: 'uuid' }),
  ...editableFields,
  modified_by: Text(200),
  modified_at: Timestamp,
});

export const UpdatePolicyBody = PatchBody(editableFields);

export const PolicyListQuery = Type.Object({
  ...PageQuery,
  agent_id: Type.Optional(Type.String({ format: 'uuid' })),
  effect: Type.Optional(PolicyEffect),
  data_classification: Type.Optional(DataClassification),
  is_active: Type.Optional(Type.Boolean()),
  search: Type.Optional(SearchQuery),
});

const sharedOut = {
  policy_name: Type.String(),
  target_integration: Type.String(),
  operation: Type.String(),
  resource_scope: Type.String(),
  data_classification: Type.String(),
  policy_effect: PolicyEffect,
  rationale: Type.String(),
  priority: Type.Integer(),
  conditions: JsonObjectOut,
  max_session_ttl: Type.Union([Type.Integer(), Type.Null()]),
  modified_by: Type.String(),
  modified_at: Timestamp,
};

export const PolicyRule = Type.Object(
  {
    id: Type.String(),
    agent_id: Type.String(),
    ...sharedOut,
    is_active: Type.Boolean(),
    policy_version: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'PolicyRule' },
);

export const PolicyVersion = Type.Object(
  {
    id: Type.String(),
    policy_rule_id: Type.String(),
    version: Type.Integer(),
    ...sharedOut,
    change_summary: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'PolicyVersion' },
);
