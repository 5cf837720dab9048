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
export const DryRunBody = Body(action);

export const EvaluateResponse = Type.Object(
  {
    decision: Effect,
    trace_id: Type.String(),
    approval_request_id: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String(),
    policy_rule_id: Type.Union([Type.String(), Type.Null()]),
    risk_classification: Type.Optional(StringEnum(['low', 'medium', 'high', 'critical'])),
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
