import { randomUUID } from 'node:crypto';
import type { ApprovalRow, TraceRow } from '@agov/db';
import { identityOf, type Principal } from '../access/access.js';
import { chainEvents, EMPTY_CHAIN } from '../audit/chain-events.js';
import type { EvaluationDeps } from './deps.js';
import { effectAudience, effectsWithAudience } from '../outbox/audience.js';
import { outboxRows, type Effect } from '../outbox/effects.js';
import type { DecisionInputs } from '../caches/decision-inputs.js';
import type { PolicyEffect } from '../policy/matching.js';
import { riskClassification, type RiskClassification } from '../policy/risk.js';
import { presentApproval } from '../presenters/approvals.js';
import { actionDigest } from './action-digest.js';
import { decide, loadDecisionInputs, type Decision, type EvaluationRequest } from './decide.js';
import { evaluationEvents } from './evaluation-events.js';

/** Approvals live this long unless the deciding rule sets `max_session_ttl`. */
export const DEFAULT_APPROVAL_TTL_SECONDS = 86_400;

export interface EvaluateInput extends EvaluationRequest {
  context?: Record<string, unknown>;
}

export interface EvaluationResult {
  decision: PolicyEffect;
  traceId: string;
  approvalRequestId: string | null;
  reason: string;
  policyRuleId: string | null;
  risk: RiskClassification | null;
}

/**
 * Decides an action and records it: the trace, its hash-chained events, for
 * `approval_required` the approval request, and the effects (webhooks, e-mail, chat card,
 * expiry, audit fan-out), committed together with other evaluations under way (group
 * commit, see evaluation-writer.ts). Every agent calls this before it acts.
 */
export async function evaluate(deps: EvaluationDeps, principal: Principal, input: EvaluateInput): Promise<EvaluationResult> {
  const inputs = await loadDecisionInputs(deps, principal.tenantId, input.agent_id);
  const context = input.context ?? {};
  const decision = decide(inputs, input, context);
  const now = deps.clock.now();
  const trace = { id: randomUUID(), tenantId: principal.tenantId };
  const approval =
    decision.effect === 'approval_required'
      ? approvalFor(trace, inputs, input, decision, { context, requestedBy: identityOf(principal) }, now)
      : null;

  const chain = chainEvents(
    trace,
    EMPTY_CHAIN,
    evaluationEvents({
      agent: inputs.agent,
      request: input,
      decision,
      rulesConsidered: inputs.rules.length,
      approval: approval && { id: approval.id, risk: approval.riskClassification, expiresAt: approval.expiresAt },
    }),
    now,
  );
  const denied = decision.effect === 'deny';
  const traceRow: TraceRow = {
    ...trace,
    agentId: inputs.agent.id,
    agentName: inputs.agent.name,
    authorityModel: inputs.agent.authorityModel,
    requestedOperation: input.operation,
    targetIntegration: input.target_integration,
    resourceScope: input.resource_scope,
    dataClassification: input.data_classification,
    decision: decision.effect,
    policyRuleId: decision.rule?.id ?? null,
    policyVersion: decision.rule?.policyVersion ?? null,
    finalOutcome: denied ? 'denied' : 'in_progress',
    hasApproval: approval !== null,
    outcomeRecorded: false,
    parentTraceId: null,
    eventCount: chain.head.seq,
    lastEventHash: chain.head.hash,
    startedAt: now,
    completedAt: denied ? now : null,
  };

  const effects: Effect[] = [{ kind: 'audit_events', traceId: trace.id, fromSeq: 1, toSeq: chain.head.seq }];
  if (approval) {
    effects.push(
      { kind: 'webhook', event: 'approval.requested', data: { approval: presentApproval(approval) } },
      { kind: 'approval_email', approvalId: approval.id },
      { kind: 'chat_card', approvalId: approval.id },
      { kind: 'approval_expiry', approvalId: approval.id, at: approval.expiresAt },
    );
  }

  const audience = await effectAudience(deps, trace.tenantId);
  await deps.evaluations.submit({
    trace: traceRow,
    events: chain.rows,
    approval,
    effects: outboxRows(trace.tenantId, effectsWithAudience(audience, effects), now),
  });

  return {
    decision: decision.effect,
    traceId: trace.id,
    approvalRequestId: approval?.id ?? null,
    reason: decision.reason,
    policyRuleId: decision.rule?.id ?? null,
    risk: approval?.riskClassification ?? null,
  };
}

function approvalFor(
  trace: { id: string; tenantId: string },
  { agent }: DecisionInputs,
  input: EvaluationRequest,
  decision: Decision,
  { context, requestedBy }: { context: Record<string, unknown>; requestedBy: string },
  now: Date,
): ApprovalRow {
  const ttlSeconds = decision.rule?.maxSessionTtl ?? DEFAULT_APPROVAL_TTL_SECONDS;
  return {
    id: randomUUID(),
    tenantId: trace.tenantId,
    traceId: trace.id,
    agentId: agent.id,
    policyRuleId: decision.rule?.id ?? null,
    requestedOperation: input.operation,
    targetIntegration: input.target_integration,
    resourceScope: input.resource_scope,
    dataClassification: input.data_classification,
    riskClassification: riskClassification(input.data_classification, agent),
    authorityModel: agent.authorityModel,
    // The person the agent answers to: its owner, on whose authority it asks.
    delegatedFrom: agent.ownerName,
    policyEffect: 'approval_required',
    flagReason: decision.reason,
    status: 'pending',
    requestedByIdentity: requestedBy,
    contextSnapshot: context,
    actionDigest: actionDigest({ ...input, agent_id: agent.id, context }),
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
    requestedAt: now,
    decidedAt: null,
    approverName: null,
    decisionNote: null,
  };
}
