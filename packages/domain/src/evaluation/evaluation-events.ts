import { ACTORS, type NewEvent } from '../audit/chain-events.js';
import type { ActionRequest } from '../policy/matching.js';
import type { RiskClassification } from '../policy/risk.js';
import type { Decision } from './decide.js';
import { throttleReason, type Throttled } from './throttle.js';
import type { AgentRow } from '@agov/db';

interface Evaluated {
  agent: AgentRow;
  request: ActionRequest;
  /** What the rules decided. */
  ruled: Decision;
  /** The limit the agent went past, if any. */
  throttled: Throttled | null;
  /** The decision that stands: the rules', or the throttle's when it is stricter. */
  decision: Decision;
  rulesConsidered: number;
  approval: { id: string; risk: RiskClassification; expiresAt: Date } | null;
}

/** The events one evaluation records, in order, per the CONTRACT's event lists. */
export function evaluationEvents({ agent, request, ruled, throttled, decision, rulesConsidered, approval }: Evaluated): NewEvent[] {
  const { rule } = ruled;
  const action = `${request.operation} on ${request.target_integration} (${request.resource_scope})`;
  const events: NewEvent[] = [
    {
      event_type: 'trace_initiated',
      actor_type: 'agent',
      actor_name: agent.name,
      description: `Agent ${agent.name} requested ${action}`,
      status: 'started',
      metadata: { ...request },
    },
    {
      event_type: 'identity_resolved',
      actor_type: 'system',
      actor_name: ACTORS.identity,
      description: `Resolved agent ${agent.name} (${agent.lifecycleState})`,
      status: agent.lifecycleState === 'active' ? 'resolved' : agent.lifecycleState,
      metadata: {
        agent_id: agent.id,
        lifecycle_state: agent.lifecycleState,
        authority_model: agent.authorityModel,
        identity_mode: agent.identityMode,
        delegation_model: agent.delegationModel,
        autonomy_tier: agent.autonomyTier,
        environment: agent.environment,
      },
    },
    {
      event_type: 'policy_evaluated',
      actor_type: 'policy_engine',
      actor_name: ACTORS.policyEngine,
      description: rule ? `Rule "${rule.policyName}" (priority ${rule.priority}) decided ${ruled.effect}` : ruled.reason,
      status: ruled.effect,
      policy_version: rule?.policyVersion ?? null,
      metadata: { policy_rule_id: rule?.id ?? null, policy_name: rule?.policyName ?? null, rules_considered: rulesConsidered },
    },
  ];
  if (throttled) {
    events.push({
      event_type: 'agent_throttled',
      actor_type: 'policy_engine',
      actor_name: ACTORS.policyEngine,
      description: `${throttleReason(throttled)}; ${decision === ruled ? `the rules' ${ruled.effect} stands` : `${decision.effect} applies`}`,
      status: 'throttled',
      metadata: { limit: throttled.limit, max: throttled.max, throttle_effect: throttled.effect },
    });
  }

  switch (decision.effect) {
    case 'deny':
      events.push(
        {
          event_type: 'operation_denied',
          actor_type: 'policy_engine',
          actor_name: ACTORS.policyEngine,
          description: decision.reason,
          status: 'denied',
          policy_version: decision.rule?.policyVersion ?? null,
        },
        {
          event_type: 'trace_closed',
          actor_type: 'system',
          actor_name: ACTORS.system,
          description: 'Trace closed: operation denied',
          status: 'denied',
        },
      );
      break;
    case 'allow':
      events.push({
        event_type: 'operation_allowed',
        actor_type: 'policy_engine',
        actor_name: ACTORS.policyEngine,
        description: `Allowed ${action}`,
        status: 'allowed',
        policy_version: decision.rule?.policyVersion ?? null,
      });
      break;
    case 'approval_required':
      events.push(
        {
          event_type: 'sensitive_operation_detected',
          actor_type: 'policy_engine',
          actor_name: ACTORS.policyEngine,
          description: `Sensitive operation: ${request.data_classification} data, ${approval!.risk} risk`,
          status: approval!.risk,
          policy_version: decision.rule?.policyVersion ?? null,
          metadata: { risk_classification: approval!.risk, data_classification: request.data_classification },
        },
        {
          event_type: 'approval_requested',
          actor_type: 'approval_service',
          actor_name: ACTORS.approvals,
          description: `Human approval requested; expires ${approval!.expiresAt.toISOString()}`,
          status: 'pending',
          approval_request_id: approval!.id,
          metadata: { expires_at: approval!.expiresAt.toISOString() },
        },
      );
      break;
  }
  return events;
}
