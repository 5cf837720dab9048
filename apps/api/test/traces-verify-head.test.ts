import { randomUUID } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { traceEvents } from '@agov/db';
import { verifyTrace } from '@agov/domain';
import { eventHash } from '@agov/domain/hash-chain';
import { useTestApp } from './harness.js';
import { evaluatedTrace, traceOf, verification } from './scenarios.js';

const t = useTestApp();

/** Deletes the trace's events past the first `keep`, as someone with database access could. */
const truncate = (traceId: string, keep: number) =>
  t.runtime.database.db.delete(traceEvents).where(and(eq(traceEvents.traceId, traceId), gt(traceEvents.seq, keep)));

describe('GET /api/v1/traces/:traceId/verify against the stored head', () => {
  it('confirms an intact trace', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    expect(await verification(t.app, tenant, traceId)).toEqual({
      trace_id: traceId,
      valid: true,
      event_count: 5,
      verified_at: expect.any(String),
    });
  });

  it.each([1, 3])('detects %i missing trailing event(s) at the last event still present', async (missing) => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    const events = (await traceOf(t.app, tenant, traceId)).events;
    await truncate(traceId, events.length - missing);
    expect(await verification(t.app, tenant, traceId)).toEqual({
      trace_id: traceId,
      valid: false,
      event_count: events.length - missing,
      verified_at: expect.any(String),
      first_invalid_event: events[events.length - missing - 1]!.id,
    });
  });

  it('detects an event appended past the head, even with a correctly computed hash', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    const last = (await traceOf(t.app, tenant, traceId)).events.at(-1)!;
    const forged = {
      id: randomUUID(),
      trace_id: traceId,
      event_type: 'operation_executed',
      actor_type: 'agent',
      actor_name: 'invoice-bot',
      description: 'forged execution',
      status: 'executed',
      timestamp: last.timestamp,
      policy_version: null,
      approval_request_id: null,
      metadata: null,
    };
    await t.runtime.database.db.insert(traceEvents).values({
      ...forged,
      tenantId: tenant.tenantId,
      traceId,
      seq: 6,
      eventType: forged.event_type,
      actorType: forged.actor_type,
      actorName: forged.actor_name,
      timestamp: new Date(forged.timestamp),
      integrityHash: eventHash(last.integrity_hash, forged),
    });
    expect(await verification(t.app, tenant, traceId)).toMatchObject({ valid: false, event_count: 6, first_invalid_event: forged.id });
  });

  it('detects a trace with every event deleted, naming no event', async () => {
    const { tenant, traceId } = await evaluatedTrace(t.app, 'deny');
    await truncate(traceId, 0);
    const principal = { kind: 'session', tenantId: tenant.tenantId, role: 'viewer', user: null, sessionId: null } as const;
    expect(await verifyTrace(t.runtime.deps, principal, traceId)).toEqual({
      traceId,
      valid: false,
      eventCount: 0,
      verifiedAt: expect.any(Date),
      firstInvalidEventId: null,
    });
    expect(await verification(t.app, tenant, traceId)).toEqual({
      trace_id: traceId,
      valid: false,
      event_count: 0,
      verified_at: expect.any(String),
      first_invalid_event: null,
    });
  });
});
