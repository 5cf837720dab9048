import type { paths } from '@agov/sdk';
import { ApiError, api, unwrap } from '../../api/client';
import { WEEK_MS } from './queries';

type SimulateBody = paths['/api/v1/policies/simulate']['post']['requestBody']['content']['application/json'];
type DraftChange = SimulateBody['changes'][number];

/** One draft change, and the agent whose recorded traffic it is tried on: a rule decides for its agent only. */
export interface WhatIfRequest {
  change: DraftChange;
  agentId: string;
}

export type Simulation = Awaited<ReturnType<typeof simulateLastWeek>>['data'];

/** The agent's evaluations recorded in the last 7 days, decided again with the draft; nothing is written. */
export async function simulateLastWeek({ change, agentId }: WhatIfRequest) {
  const now = Date.now();
  const body: SimulateBody = {
    from: new Date(now - WEEK_MS).toISOString(),
    to: new Date(now).toISOString(),
    agent_id: agentId,
    changes: [change],
  };
  try {
    return await unwrap(api.POST('/api/v1/policies/simulate', { body }));
  } catch (error) {
    throw withRuleFieldNames(error);
  }
}

// The service names a draft's fields, in their problems and messages, by their place in the body
// (`changes.0.rule.conditions`); the rule form shows them on its fields by the rule's own names,
// as a save's.
const DRAFT_RULE_FIELD = /^changes\.0\.rule\./;

function withRuleFieldNames(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.body?.error !== 'validation_error') return error;
  const details = error.body.details as { fields?: { field: string; message: string }[] } | undefined;
  const fields = (details?.fields ?? [])
    .filter(({ field }) => DRAFT_RULE_FIELD.test(field))
    .map(({ field, message }) => ({ field: field.replace(DRAFT_RULE_FIELD, ''), message: message.replace(DRAFT_RULE_FIELD, '') }));
  return new ApiError(error.status, { ...error.body, details: { ...details, fields } }, error.message);
}
