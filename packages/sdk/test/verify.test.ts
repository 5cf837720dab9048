import { describe, expect, it } from 'vitest';
import { eventHash as serverEventHash } from '@agov/domain/hash-chain';
import { useTestApp } from '../../../apps/api/test/harness.js';
import { eventHash, InvalidExportError, verifyAuditExport, verifyTraceExport } from '../src/index.js';
import { governedAgent, listen, writeToRepo } from './service.js';

const t = useTestApp();

/** A tenant with one approved-and-executed trace and one denied one, and their exports. */
async function exportedTraces() {
  const from = new Date(Date.now() - 60_000).toISOString();
  const { runtime, admin, agentId } = await governedAgent(t, await listen(t), 'approval_required');
  await runtime.guard(writeToRepo(agentId), () => 'done', {
    pollIntervalMs: 100,
    onEvaluated: (evaluation) =>
      void setTimeout(() => admin.approveApproval(evaluation.approval_request_id!, { approver_name: 'Rita' }), 100),
  });
  await runtime.evaluate({ ...writeToRepo(agentId), resource_scope: 'wiki/home' });
  const traces = (await admin.api.GET('/api/v1/traces', { params: { query: { agent_id: agentId, limit: 20, offset: 0 } } })).data!.data;
  const exports = await Promise.all(traces.map((trace) => admin.exportTrace(trace.id)));
  const audit = await admin.exportAudit({ from, to: new Date(Date.now() + 60_000).toISOString() });
  return { admin, exports, audit };
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe('offline verification of a trace export', () => {
  it('a real export and the trace detail verify; each hash equals the server’s', async () => {
    const { admin, exports } = await exportedTraces();
    const approved = exports.find((file) => file.trace.final_outcome === 'completed_with_approval')!;
    expect(await verifyTraceExport(approved)).toEqual({
      traceId: approved.trace.id,
      valid: true,
      eventCount: approved.events.length,
      firstInvalidEventId: null,
      firstInvalidPosition: null,
    });
    expect(approved.events.length).toBe(10);
    expect((await verifyTraceExport(await admin.getTrace(approved.trace.id))).valid).toBe(true);
    let previous = '';
    for (const event of approved.events) {
      const hash = await eventHash(previous, approved.trace.id, event);
      expect(hash).toBe(serverEventHash(previous, { ...event, trace_id: approved.trace.id }));
      expect(hash).toBe(event.integrity_hash);
      previous = hash;
    }
  });

  it('a tampered copy names the first broken event: changed, removed, reordered', async () => {
    const { exports } = await exportedTraces();
    const file = exports.find((each) => each.trace.final_outcome === 'completed_with_approval')!;
    const changed = clone(file);
    changed.events[3]!.description = 'Nothing to see here';
    expect(await verifyTraceExport(changed)).toMatchObject({
      valid: false,
      firstInvalidEventId: file.events[3]!.id,
      firstInvalidPosition: 4,
    });

    const removed = clone(file);
    removed.events.splice(2, 1);
    expect(await verifyTraceExport(removed)).toMatchObject({
      valid: false,
      firstInvalidEventId: file.events[3]!.id,
      firstInvalidPosition: 3,
    });

    const reordered = clone(file);
    [reordered.events[5], reordered.events[6]] = [reordered.events[6]!, reordered.events[5]!];
    expect(await verifyTraceExport(reordered)).toMatchObject({
      valid: false,
      firstInvalidEventId: file.events[6]!.id,
      firstInvalidPosition: 6,
    });

    const metadata = clone(file);
    metadata.events.at(-2)!.metadata = { summary: 'something else' };
    expect(await verifyTraceExport(metadata)).toMatchObject({ valid: false, firstInvalidEventId: file.events.at(-2)!.id });
  });

  it('a file that is no trace export is an InvalidExportError', async () => {
    for (const file of [null, [], { events: [] }, { trace: { id: 't' }, events: [{ id: 'e' }] }]) {
      await expect(verifyTraceExport(file)).rejects.toBeInstanceOf(InvalidExportError);
    }
  });
});

describe('offline verification of an audit export', () => {
  it('checks every row against the verified chains of the traces given, and lists the rest', async () => {
    const { exports, audit } = await exportedTraces();
    const traceIds = exports.map((file) => file.trace.id);
    expect(audit.length).toBe(exports.reduce((sum, file) => sum + file.events.length, 0));
    expect(await verifyAuditExport(audit, exports)).toEqual({
      valid: true,
      eventCount: audit.length,
      checkedTraceIds: expect.arrayContaining(traceIds),
      uncheckedTraceIds: [],
      firstInvalidEventId: null,
      problem: null,
    });
    const partial = await verifyAuditExport(audit, [exports[0]]);
    expect({ valid: partial.valid, checked: partial.checkedTraceIds, unchecked: partial.uncheckedTraceIds }).toEqual({
      valid: true,
      checked: [exports[0]!.trace.id],
      unchecked: [exports[1]!.trace.id],
    });
  });

  it('a changed row, a row of no trace, or a broken trace file is reported at its event', async () => {
    const { exports, audit } = await exportedTraces();
    const changed = clone(audit);
    changed[4]!.actor_name = 'someone else';
    expect(await verifyAuditExport(changed, exports)).toMatchObject({
      valid: false,
      firstInvalidEventId: audit[4]!.event_id,
      problem: "actor_name differs from the trace's event",
    });

    const foreign = clone(audit);
    foreign[1]!.event_id = '00000000-0000-4000-8000-000000000000';
    expect(await verifyAuditExport(foreign, exports)).toMatchObject({ valid: false, firstInvalidEventId: foreign[1]!.event_id });

    const brokenFile = clone(exports[0]!);
    brokenFile.events[0]!.status = 'rewritten';
    expect(await verifyAuditExport(audit, [brokenFile])).toMatchObject({
      valid: false,
      firstInvalidEventId: brokenFile.events[0]!.id,
      problem: `the hash chain of trace ${brokenFile.trace.id} breaks at this event`,
    });
    const removed = clone(audit);
    removed.splice(3, 1);
    expect(await verifyAuditExport(removed, exports)).toMatchObject({
      valid: false,
      firstInvalidEventId: audit[3]!.event_id,
      problem: `missing: an event of trace ${audit[3]!.trace_id} recorded within the export's time span`,
    });

    const otherAgent = clone(audit);
    otherAgent[2]!.agent_id = '00000000-0000-4000-8000-000000000000';
    expect(await verifyAuditExport(otherAgent, exports)).toMatchObject({
      firstInvalidEventId: audit[2]!.event_id,
      problem: "agent_id differs from the trace's event",
    });

    // What the rows alone show, without any trace file.
    expect(await verifyAuditExport([...audit, audit[0]])).toMatchObject({
      valid: false,
      firstInvalidEventId: audit[0]!.event_id,
      problem: 'it appears twice',
    });
    const unhashed = clone(audit);
    unhashed[1]!.integrity_hash = 'md5:abc';
    expect(await verifyAuditExport(unhashed)).toMatchObject({
      firstInvalidEventId: audit[1]!.event_id,
      problem: 'its integrity_hash is not a sha256 hash',
    });
    const late = clone(audit);
    late[0]!.timestamp = '2099-01-01T00:00:00.000Z';
    expect(await verifyAuditExport(late)).toMatchObject({ firstInvalidEventId: audit[1]!.event_id, problem: 'it is out of time order' });
    expect(await verifyAuditExport(audit)).toMatchObject({ valid: true, checkedTraceIds: [], uncheckedTraceIds: expect.any(Array) });

    await expect(verifyAuditExport({ rows: [] })).rejects.toBeInstanceOf(InvalidExportError);
  });
});
