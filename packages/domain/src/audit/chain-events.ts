import { randomUUID } from 'node:crypto';
import type { TraceEventRow } from '@agov/db';
import { eventHash, type ChainedEvent } from './hash-chain.js';

/** Actor names of the service's own components in the audit trail. */
export const ACTORS = {
  identity: 'identity-resolver',
  policyEngine: 'policy-engine',
  approvals: 'approval-service',
  system: 'governance-service',
} as const;

export type ActorType = 'agent' | 'policy_engine' | 'approval_service' | 'human_reviewer' | 'system';

/** An audit event to append; the chain supplies id, position, time and integrity hash. */
export interface NewEvent {
  event_type: string;
  actor_type: ActorType;
  actor_name: string;
  description: string;
  status: string;
  policy_version?: number | null;
  approval_request_id?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** Where a trace's chain ends: the last event's position and stored hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

export const EMPTY_CHAIN: ChainHead = { seq: 0, hash: '' };

/**
 * Appends events to a trace's chain: each is hashed over its API shape and the hash of the
 * one before it. The caller stores the rows and moves the trace's head in one transaction.
 */
export function chainEvents(
  trace: { id: string; tenantId: string },
  head: ChainHead,
  events: readonly NewEvent[],
  at: Date,
): { rows: TraceEventRow[]; head: ChainHead } {
  const timestamp = at.toISOString();
  let { seq, hash } = head;
  const rows = events.map((event): TraceEventRow => {
    const chained: ChainedEvent = {
      id: randomUUID(),
      trace_id: trace.id,
      event_type: event.event_type,
      actor_type: event.actor_type,
      actor_name: event.actor_name,
      description: event.description,
      status: event.status,
      timestamp,
      policy_version: event.policy_version ?? null,
      approval_request_id: event.approval_request_id ?? null,
      metadata: event.metadata ?? null,
    };
    hash = eventHash(hash, chained);
    seq += 1;
    return {
      id: chained.id,
      tenantId: trace.tenantId,
      traceId: trace.id,
      seq,
      eventType: chained.event_type,
      actorType: chained.actor_type,
      actorName: chained.actor_name,
      description: chained.description,
      status: chained.status,
      timestamp: at,
      policyVersion: chained.policy_version,
      approvalRequestId: chained.approval_request_id,
      metadata: chained.metadata,
      integrityHash: hash,
    };
  });
  return { rows, head: { seq, hash } };
}
