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
import { allowGrant, issuesAllowGrants } from '../grants/grants.js';
import { actionDigest } from './action-digest.js';
import { decide, loadDecisionInputs, shadowDecision, type Decision, type EvaluationRequest } from './decide.js';
import { evaluationEvents } from './evaluation-events.js';
import { entryOf } from '../history/entries.js';
import { admitWithHistory, historyTermsOf, valuesOf } from '../history/read.js';
import type { Admission } from '../limits/counters.js';
import { budgetCrossings, budgetsOf, type BudgetCrossing } from '../history/budgets.js';
import { presentBudgetCrossing } from '../presenters/agents.js';
import type { HistoryValues } from '../policy/history-operators.js';
import { hasThrottle, throttledDecision, throttleOf } from './throttle.js';
import { missedSince, StaleCaches } from '../caches/freshness.js';

/** Approvals live this long unless the deciding rule sets `max_session_ttl`. */
export const DEFAULT_APPROVAL_TTL_SECONDS = 86_400;

export interface EvaluateInput extends EvaluationRequest {
  context?: Record<string, unknown>;
}

/** How one attempt at an evaluation stands towards the rate limit and the caches. */
export interface EvaluationAttempt {
  /** The tenant's limit, still to be judged; null when an earlier attempt has judged it. */
  admission: Admission | null;
  /**
   * How far the process had heard of invalidations when the request began, for an attempt on
   * caches nobody has checked since (`Freshness.heardSoFar`); null when they were checked.
   */
  heardThrough: number | null;
}

export interface EvaluationResult {
  decision: PolicyEffect;
  traceId: string;
  approvalRequestId: string | null;
  reason: string;
  policyRuleId: string | null;
  risk: RiskClassification | null;
  /** The execution grant of an `allow`, when the tenant asks for them. */
  grant: string | null;
}

/**
 * Decides an action and records it: the trace, its hash-chained events, for
 * `approval_required` the approval request, for an `allow` of a tenant that asks for one its
 * execution grant, the effects (webhooks, e-mail, chat card, expiry, audit fan-out) and what a
 * shadow rule would have decided instead, committed together with other evaluations under way
 * (group commit, see evaluation-writer.ts). Every agent calls this before it acts.
 *
 * On unchecked caches (`heardThrough`) the rows are written only if no change committed since
 * the request began, else it throws `StaleCaches` having recorded nothing, for the caller to
 * decide again once the caches caught up. An agent whose evaluations count in its history or
 * throttle has its caches checked first instead, as a second attempt would count it twice.
 */
export async function evaluate(
  deps: EvaluationDeps,
  principal: Principal,
  input: EvaluateInput,
  { admission, heardThrough: heardAtStart }: EvaluationAttempt,
): Promise<EvaluationResult> {
  const inputs = await loadDecisionInputs(deps, principal.tenantId, input.agent_id);
  const terms = historyTermsOf(inputs);
  const heardThrough = terms.length > 0 || hasThrottle(inputs.agent) ? await checkedCaches(deps, heardAtStart) : heardAtStart;
  const deciding = {
    inputs,
    context: input.context ?? {},
    now: deps.clock.now(),
    trace: { id: randomUUID(), tenantId: principal.tenantId },
    heardThrough,
  };
  // Read only for an agent whose rules use history operators, with the tenant's limit: one call to the counters either way.
  if (terms.length === 0) {
    if (admission) admission.judged(await deps.rateLimits.counters.hit(admission.gate.key, admission.gate.query, true));
    return decideAndRecord(deps, principal, input, { ...deciding, history: undefined, crossings: [] });
  }
  const entry = entryOf(deciding.now.getTime(), input, deciding.context);
  const query = { terms, nowMs: entry.atMs, entry, reserve: true };
  const readings = await admitWithHistory(deps, admission, inputs.agent, query);
  const history = valuesOf(terms, readings);
  const crossings = readings ? budgetCrossings(budgetsOf(inputs), terms, readings) : [];
  // The reserved entry counts for the decision filters once recorded (there is nothing to tell
  // without one), or goes should the trace not be written. Not awaited: only a `decision` filter
  // reads the decision, and such a filter counts decisions made.
  let recorded: PolicyEffect | null = null;
  try {
    const result = await decideAndRecord(deps, principal, input, { ...deciding, history, crossings });
    recorded = result.decision;
    return result;
  } finally {
    if (recorded === null || terms.some((term) => term.filter.decision)) void deps.history.settle(inputs.agent.id, terms, entry, recorded);
  }
}

/**
 * `heardThrough` once the caches are known to hold every change committed before the request
 * began: null, the write then needing no check. Throws `StaleCaches` when they may not.
 */
async function checkedCaches(deps: EvaluationDeps, heardThrough: number | null): Promise<null> {
  if (heardThrough === null) return null;
  if (await missedSince(deps.freshness, heardThrough)) throw new StaleCaches();
  return null;
}

/** What `evaluate` decides on: the agent's rules, the request's context, the instant, the new trace's id and the history read. */
interface Deciding {
  inputs: DecisionInputs;
  context: Record<string, unknown>;
  now: Date;
  trace: { id: string; tenantId: string };
  history: HistoryValues | undefined;
  /** The agent's budgets this evaluation takes past a threshold. */
  crossings: readonly BudgetCrossing[];
  /** See `EvaluationAttempt`. */
  heardThrough: number | null;
}

async function decideAndRecord(
  deps: EvaluationDeps,
  principal: Principal,
  input: EvaluateInput,
  { inputs, context, now, trace, history, crossings, heardThrough }: Deciding,
): Promise<EvaluationResult> {
  const ruled = decide(inputs, input, context, history);
  const shadow = shadowDecision(inputs, input, context, ruled, history);
  // Hashed only when something needs it: a loop guard, an approval or a grant.
  let hashed: string | undefined;
  const digest = () => (hashed ??= actionDigest({ ...input, agent_id: inputs.agent.id, context }));
  const throttled = hasThrottle(inputs.agent) ? await throttleOf(deps.rateLimits.counters, inputs.agent, digest, now.getTime()) : null;
  const decision = throttled ? throttledDecision(ruled, throttled) : ruled;
  const approval =
    decision.effect === 'approval_required'
      ? approvalFor(trace, inputs, input, decision, { context, digest: digest(), requestedBy: identityOf(principal) }, now)
      : null;

  const chain = chainEvents(
    trace,
    EMPTY_CHAIN,
    evaluationEvents({
      agent: inputs.agent,
      request: input,
      ruled,
      throttled,
      decision,
      rulesConsidered: inputs.rules.length,
      approval: approval && { id: approval.id, risk: approval.riskClassification, expiresAt: approval.expiresAt },
    }),
    now,
  );
  const grant =
    decision.effect === 'allow' && (await issuesAllowGrants(deps, trace.tenantId))
      ? await allowGrant(
          deps,
          {
            ...trace,
            traceId: trace.id,
            agentId: inputs.agent.id,
            actionDigest: digest(),
            policyRuleId: decision.rule!.id,
          },
          decision.rule!.maxSessionTtl,
          now,
        )
      : null;
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
    agentStateId: inputs.agent.stateId,
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
    if (approval.escalateAt) effects.push({ kind: 'approval_escalation', approvalId: approval.id, at: approval.escalateAt });
  }
  for (const crossing of crossings)
    effects.push({ kind: 'webhook', event: 'budget.threshold', data: presentBudgetCrossing(inputs.agent, crossing) });

  const audience = await effectAudience(deps, trace.tenantId);
  await deps.evaluations.submit({
    trace: traceRow,
    events: chain.rows,
    approval,
    grant,
    effects: outboxRows(trace.tenantId, effectsWithAudience(audience, effects), now),
    // Recorded only where it would have changed the rules' decision: what the shadow report counts.
    // The throttle stands apart from the rules, so the shadow pass is set against what they decided.
    shadow:
      shadow && shadow.effect !== ruled.effect
        ? {
            traceId: trace.id,
            tenantId: trace.tenantId,
            agentId: inputs.agent.id,
            policyRuleId: shadow.rule.id,
            decision: ruled.effect,
            shadowDecision: shadow.effect,
            recordedAt: now,
          }
        : null,
    heardThrough,
  });

  return {
    decision: decision.effect,
    traceId: trace.id,
    approvalRequestId: approval?.id ?? null,
    reason: decision.reason,
    policyRuleId: decision.rule?.id ?? null,
    risk: approval?.riskClassification ?? null,
    grant: grant?.token ?? null,
  };
}

function approvalFor(
  trace: { id: string; tenantId: string },
  { agent }: DecisionInputs,
  input: EvaluationRequest,
  decision: Decision,
  { context, digest, requestedBy }: { context: Record<string, unknown>; digest: string; requestedBy: string },
  now: Date,
): ApprovalRow {
  const ttlSeconds = decision.rule?.maxSessionTtl ?? DEFAULT_APPROVAL_TTL_SECONDS;
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
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
    actionDigest: digest,
    expiresAt,
    escalateAt: escalationTime(decision.rule?.escalateAfterSeconds ?? null, now, expiresAt),
    escalatedAt: null,
    requestedAt: now,
    decidedAt: null,
    approverName: null,
    decisionNote: null,
    approvalsRequired: decision.rule?.approvalsRequired ?? 1,
    votes: [],
  };
}

/**
 * When a request is escalated if still pending: `escalate_after_seconds` after it was made,
 * or never when the rule sets none or the request expires by then (an escalation at or after
 * expiry could only tell people about a request they can no longer decide).
 */
function escalationTime(afterSeconds: number | null, now: Date, expiresAt: Date): Date | null {
  if (afterSeconds === null) return null;
  const at = new Date(now.getTime() + afterSeconds * 1000);
  return at < expiresAt ? at : null;
}
