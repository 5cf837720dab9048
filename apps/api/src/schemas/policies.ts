import { type Static, Type } from '@sinclair/typebox';
import { RULE_MODES } from '@agov/domain';
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
  StringEnum,
  Text,
  Timestamp,
} from './common.js';
import { TimeBound } from './traces.js';

const PolicyEffect = Effect;

/** 30 days: an escalation later than that would outlive any sensible approval. */
const MAX_ESCALATE_AFTER_SECONDS = 2_592_000;

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
  approvals_required: Type.Integer({
    minimum: 1,
    maximum: 5,
    // No `default` keyword: bodies are validated with defaults applied, and a PATCH must not reset it.
    description: 'How many distinct people must approve a request this rule queues (1 when omitted); any one deny ends it',
  }),
  /** Seconds a queued request may stay pending before the tenant's escalation recipients are told (at most 30 days); null never. */
  escalate_after_seconds: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_ESCALATE_AFTER_SECONDS }), Type.Null()]),
  // No `default` keyword either: a PATCH without `mode` keeps the rule's.
  mode: StringEnum(RULE_MODES, {
    description:
      '`enforce` (when omitted on create): the rule decides. `shadow`: it never decides; each evaluation it would have decided otherwise is counted in the shadow report',
  }),
};

export const CreatePolicyBody = Body({
  agent_id: Type.String({ format: 'uuid' }),
  ...editableFields,
  approvals_required: Type.Optional(editableFields.approvals_required),
  escalate_after_seconds: Type.Optional(editableFields.escalate_after_seconds),
  mode: Type.Optional(editableFields.mode),
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
  approvals_required: Type.Integer(),
  escalate_after_seconds: Type.Union([Type.Integer(), Type.Null()]),
  mode: StringEnum(RULE_MODES),
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

export const ShadowReportQuery = Type.Object({
  from: TimeBound,
  to: TimeBound,
  agent_id: Type.Optional(Type.String({ format: 'uuid' })),
});

const Transition = Type.Object({ from: PolicyEffect, to: PolicyEffect, count: Type.Integer({ minimum: 1 }) });

export const ShadowReportEntry = Type.Object(
  {
    policy_rule_id: Type.String(),
    policy_name: Type.String(),
    would_change: Type.Integer({ minimum: 1, description: 'Decisions in the window this shadow rule would have changed' }),
    transitions: Type.Array(Transition, {
      description: 'Each change from the decision made to the one the rule would have made; most frequent first',
    }),
    sample_trace_ids: Type.Array(Type.String(), { description: 'Traces of some of those decisions (at most 5), newest first' }),
  },
  { title: 'ShadowReportEntry' },
);

/** Most changes one simulation takes: a draft is a reviewer's change set, not a rule import. */
const MAX_DRAFT_CHANGES = 100;

const RuleId = Type.String({ format: 'uuid' });

/** A TimeBound with an example: a body's example is built from its fields', and TimeBound's branches give none. */
const WindowBound = (example: string) => Type.Unsafe<string>({ ...TimeBound, examples: [example] });

const RULE_CHANGES = [
  Body({ action: Type.Literal('create'), rule: CreatePolicyBody }, { title: 'RuleCreateChange' }),
  Body({ action: Type.Literal('update'), policy_rule_id: RuleId, rule: UpdatePolicyBody }, { title: 'RuleUpdateChange' }),
  Body({ action: Type.Literal('delete'), policy_rule_id: RuleId }, { title: 'RuleDeleteChange' }),
];

/**
 * One change of a change set: the bodies of create, PATCH and DELETE on the rule endpoints.
 * `action` picks the shape, so a problem is reported against that shape alone, not all three.
 * `type` stands beside it because the validator's discriminator passes anything that is not an
 * object (a `null` change) without looking at the branches.
 */
const RuleChange = Type.Unsafe<Static<(typeof RULE_CHANGES)[number]>>({
  type: 'object',
  oneOf: RULE_CHANGES,
  discriminator: { propertyName: 'action' },
  title: 'RuleChange',
});

export const SimulateBody = Body({
  from: WindowBound('2026-11-01T00:00:00Z'),
  to: WindowBound('2026-11-30'),
  agent_id: Type.Optional(Type.String({ format: 'uuid' })),
  changes: Type.Array(RuleChange, { maxItems: MAX_DRAFT_CHANGES, description: 'Applied in order to the current rules, in memory only' }),
});

/** Most changes one apply takes: a whole tenant's rule file, yet one transaction of bounded length. */
const MAX_APPLIED_CHANGES = 1000;

const Revision = Type.String({
  pattern: '^sha256:[0-9a-f]{64}$',
  description: "The revision of the tenant's rules (GET /api/v1/policies/revision); opaque, compare only",
  examples: [`sha256:${'0'.repeat(64)}`],
});

export const RuleSetRevision = Type.Object({ revision: Revision }, { title: 'RuleSetRevision' });

export const ApplyRuleSetBody = Body({
  revision: Revision,
  change_summary: Type.String({ minLength: 1, maxLength: 500, description: 'The change_summary of every version this apply writes' }),
  changes: Type.Array(RuleChange, {
    maxItems: MAX_APPLIED_CHANGES,
    description: 'Applied in order, in one transaction: all of them or none',
  }),
});

export const RuleSetApplied = Type.Object(
  {
    revision: Revision,
    created: Type.Array(Type.String(), { description: 'The created rules, in the order of their changes' }),
    updated: Type.Array(Type.String(), { description: 'The updated rules, in the order of their changes' }),
    deleted: Type.Array(Type.String(), { description: 'The deleted (deactivated) rules, in the order of their changes' }),
  },
  { title: 'RuleSetApplied' },
);

/** The rule that decides under the draft: an existing rule's id, or the index of the create in `changes`. */
const DecidingRule = {
  policy_rule_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The rule deciding under the draft; null for a rule the draft creates, a default deny or an inactive agent',
  }),
  change: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'For a rule the draft creates, the index of its create in `changes`; null otherwise',
  }),
};

export const Simulation = Type.Object(
  {
    evaluated: Type.Integer({ minimum: 0, description: 'Recorded evaluations in the window, each re-decided' }),
    changed: Type.Integer({ minimum: 0, description: 'How many of them the draft would decide otherwise' }),
    transitions: Type.Array(Transition, { description: 'Each change from the recorded decision to the new one; most frequent first' }),
    samples: Type.Array(Type.Object({ trace_id: Type.String(), from: PolicyEffect, to: PolicyEffect, ...DecidingRule }), {
      description: 'Per transition in that order, its oldest changed evaluations (at most 10)',
    }),
    rules: Type.Array(Type.Object({ ...DecidingRule, changed: Type.Integer({ minimum: 1 }) }), {
      description: 'Changed decisions per rule deciding under the draft; most first',
    }),
  },
  { title: 'Simulation' },
);
