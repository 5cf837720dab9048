import { Type } from '@sinclair/typebox';
import { Body, DataClassification, Effect, Freeform, StringEnum, Text } from './common.js';

/** The action an agent intends, as evaluate and the dry run take it. */
const action = {
  agent_id: Type.String({ format: 'uuid' }),
  operation: Text(200),
  target_integration: Text(200),
  resource_scope: Text(2000),
  data_classification: DataClassification,
};

export const EvaluateBody = Body({ ...action, context: Type.Optional(Freeform) });
export const DryRunBody = Body({
  ...action,
  include_shadow: Type.Optional(
    Type.Boolean({
      description: 'Decide as if the shadow rules were enforced; without it (or false) they are ignored, as evaluate ignores them',
    }),
  ),
});

export const EvaluateResponse = Type.Object(
  {
    decision: Effect,
    trace_id: Type.String(),
    approval_request_id: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String(),
    policy_rule_id: Type.Union([Type.String(), Type.Null()]),
    risk_classification: Type.Optional(StringEnum(['low', 'medium', 'high', 'critical'])),
    grant: Type.Optional(
      Type.String({
        description:
          'The execution grant of an allow, present when the tenant turned on grants for allowed actions (PUT /api/v1/settings/grants): a compact JWS a tool verifies offline (docs/grants.md)',
      }),
    ),
  },
  { title: 'Evaluation' },
);

export const DryRunResponse = Type.Object(
  {
    effect: Effect,
    rule_id: Type.Union([Type.String(), Type.Null()]),
    rationale: Type.String(),
    policy_version: Type.Union([Type.Integer(), Type.Null()]),
  },
  { title: 'DryRunResult' },
);
