import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectErrorBody, FORBIDDEN, MALFORMED_ID, notFound, stopUntilTestEnds, UNAUTHENTICATED } from './assertions.js';
import { client } from './client.js';
import { APPROVED_EVENTS } from './export-format.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { useTestApp, keyWithScopes, sessionWithRole, signupTenant, TestClock } from './harness.js';
import { decision, evaluation, type TraceEvent, traceOf } from './scenarios.js';

const clock = new TestClock();
const t = useTestApp({ clock });
const api = client(t);

/** Runs the offline verifier from source on an export, as apps/cli/test/verify-trace.test.ts does. */
function verifyOffline(file: unknown) {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'agov-export-'));
  try {
    const path = join(dir, 'trace.json');
    writeFileSync(path, JSON.stringify(file));
    return spawnSync(join(root, 'node_modules/.bin/tsx'), ['--conditions=source', join(root, 'apps/cli/src/verify-trace.ts'), path], {
      encoding: 'utf8',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An approval_required trace, approved by a reviewer with a note. */
async function approvedTrace() {
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
  const evaluated = await evaluation(t.app, tenant, action(agent.id));
  await decision(t.app, tenant, evaluated.approval_request_id!, 'approve', {
    approver_name: 'Rita Reviewer',
    decision_note: 'Checked with finance',
  });
  return { tenant, evaluated, traceId: evaluated.trace_id };
}

describe('GET /api/v1/traces/:traceId/export', () => {
  it('downloads the trace, its full chain and its approvals as one JSON file that verifies offline', async () => {
    const { tenant, evaluated, traceId } = await approvedTrace();
    const { events, approval_requests, ...trace } = await traceOf(t.app, tenant, traceId);
    const exportedAt = stopUntilTestEnds(clock);
    const response = await api.get(tenant.runtimeKey, `/api/v1/traces/${traceId}/export`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="trace-${traceId}.json"`);

    const file = response.json();
    expect(Object.keys(file)).toEqual(['trace', 'events', 'approval_requests', 'exported_at']);
    expect(Object.keys(file.trace).sort()).toEqual(
      [
        'id',
        'agent_id',
        'agent_name',
        'authority_model',
        'requested_operation',
        'target_integration',
        'resource_scope',
        'parent_trace_id',
        'final_outcome',
        'started_at',
        'completed_at',
        'duration_ms',
      ].sort(),
    );
    expect(file.trace).toEqual(trace);
    expect(file.trace).toMatchObject({ id: traceId, final_outcome: 'completed_with_approval', parent_trace_id: null });
    expect(file.events).toEqual(events);
    expect(file.events.map((event: TraceEvent) => event.event_type)).toEqual(APPROVED_EVENTS);
    expect(file.approval_requests).toEqual([
      {
        id: evaluated.approval_request_id,
        status: 'approved',
        flag_reason: evaluated.reason,
        approver_name: 'Rita Reviewer',
        decision_note: 'Checked with finance',
        decided_at: approval_requests[0]!.decided_at,
      },
    ]);
    expect(file.exported_at).toBe(exportedAt.toISOString());

    const intact = verifyOffline(file);
    expect(intact.status, intact.stderr).toBe(0);
    expect(intact.stdout).toBe(`valid: trace ${traceId}, 8 events, hash chain intact\n`);
    const tampered = verifyOffline({
      ...file,
      events: file.events.map((event: TraceEvent, i: number) => (i === 5 ? { ...event, description: 'Approved by nobody' } : event)),
    });
    expect(tampered.status, tampered.stderr).toBe(1);
    expect(tampered.stdout).toContain(`chain breaks at event ${events[5]!.id}`);
  });

  it('admits a traces:read key and reviewer or admin sessions; refuses viewers and other keys', async () => {
    const { tenant, traceId } = await approvedTrace();
    const url = `/api/v1/traces/${traceId}/export`;
    for (const credential of [
      tenant.runtimeKey,
      await keyWithScopes(t.app, tenant, ['traces:read']),
      tenant.admin,
      await sessionWithRole(t.app, tenant, 'reviewer'),
    ]) {
      expect((await api.get(credential, url)).statusCode).toBe(200);
    }
    expectErrorBody(await api.get(await sessionWithRole(t.app, tenant, 'viewer'), url), 403, FORBIDDEN);
    expectErrorBody(await api.get(await keyWithScopes(t.app, tenant, ['evaluate', 'approvals:read']), url), 403, FORBIDDEN);
    expectErrorBody(await api.get(null, url), 401, UNAUTHENTICATED);
  });

  it("answers 404 for another tenant's trace, an unknown id and a malformed id", async () => {
    const { traceId } = await approvedTrace();
    const other = await signupTenant(t.app);
    for (const [id, body] of [
      [traceId, notFound('Trace')],
      [randomUUID(), notFound('Trace')],
      ['not-a-uuid', MALFORMED_ID],
    ] as const)
      expectErrorBody(await api.get(other.admin, `/api/v1/traces/${id}/export`), 404, body);
  });
});
