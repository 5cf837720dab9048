import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventHash } from '@agov/domain/hash-chain';
import { client } from '../../api/test/client.js';
import { ALL_TIME, type AuditEvent, exportAudit } from '../../api/test/export-format.js';
import { action, createAgent, createPolicy } from '../../api/test/fixtures.js';
import { signupTenant, useTestApp } from '../../api/test/harness.js';
import { decision, evaluation, succeeded, type TraceEvent } from '../../api/test/scenarios.js';
import { agov } from './run.js';

interface TraceExport {
  trace: { id: string; agent_id: string };
  events: TraceEvent[];
}

const t = useTestApp();
const api = client(t);
let dir: string;
/** An approved trace that ran (10 events) and a denied one (5), as their exports and the tenant's audit export. */
let approved: TraceExport;
let denied: TraceExport;
let detail: { id: string; events: TraceEvent[] };
let audit: AuditEvent[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agov-verify-'));
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
  const approval = await evaluation(t.app, tenant, { ...action(agent.id), context: { note: 'ünïcode ✓', n: 3 } });
  const denial = await evaluation(t.app, tenant, action(agent.id, { operation: 'delete' }));
  await decision(t.app, tenant, approval.approval_request_id!, 'approve', { approver_name: 'Rita Reviewer' });
  await succeeded(t.app, tenant, approval.trace_id);
  const exported = async (traceId: string) => (await api.get(tenant.runtimeKey, `/api/v1/traces/${traceId}/export`)).json() as TraceExport;
  approved = await exported(approval.trace_id);
  denied = await exported(denial.trace_id);
  detail = (await api.get(tenant.runtimeKey, `/api/v1/traces/${approval.trace_id}`)).json();
  audit = (await exportAudit(api, tenant.admin, ALL_TIME)).json();
  expect([approved.events.length, denied.events.length, audit.length]).toEqual([10, 5, 15]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** Recomputes every hash, as someone rewriting the stored chain would. */
function rechained(events: TraceEvent[], traceId: string): TraceEvent[] {
  let previous = '';
  return events.map((event) => {
    const integrity_hash = eventHash(previous, { ...event, trace_id: traceId, metadata: event.metadata as Record<string, unknown> | null });
    previous = integrity_hash;
    return { ...event, integrity_hash };
  });
}

describe('agov verify: a trace', () => {
  it('accepts an intact trace in the export shape, the detail shape and on standard input', async () => {
    const id = approved.trace.id;
    const valid = { status: 0, stdout: `valid: trace ${id}, 10 events, hash chain intact\n`, stderr: '' };
    expect(await agov(['verify', write('export.json', approved)])).toEqual(valid);
    expect(await agov(['verify', write('detail.json', detail)])).toEqual(valid);
    expect(await agov(['verify', '-'], { input: JSON.stringify(approved) })).toEqual(valid);
  });

  it('names the first tampered event and exits 1', async () => {
    const events = approved.events.map((event, index) => (index === 2 ? { ...event, description: 'rewritten' } : event));
    expect(await agov(['verify', write('tampered.json', { ...approved, events })])).toEqual({
      status: 1,
      stdout: `INVALID: trace ${approved.trace.id}, chain breaks at event ${approved.events[2]!.id} (position 3 of 10)\n`,
      stderr: '',
    });
  });

  it('refuses what is not an export with exit 2', async () => {
    const refused = (stderr: string) => ({ status: 2, stdout: '', stderr });
    const missing = join(dir, 'missing.json');
    expect(await agov(['verify', missing])).toEqual(
      refused(`agov verify: cannot read ${missing}: ENOENT: no such file or directory, open '${missing}'\n`),
    );
    expect(await agov(['verify', write('other.json', { hello: 'world' })])).toEqual(
      refused('agov verify: not a trace export: expected {trace: {id}, events: [...]} or {id, events: [...]}\n'),
    );
    expect(await agov(['verify', write('numbers.json', { id: approved.trace.id, events: [1, 2] })])).toEqual(
      refused('agov verify: not a trace export: expected {trace: {id}, events: [...]} or {id, events: [...]}\n'),
    );
    expect(await agov(['verify', write('infinite.json', '{"id": "t", "events": [{"id": "e", "metadata": {"n": 1e400}}]}')])).toEqual(
      refused(
        `agov verify: cannot read ${join(dir, 'infinite.json')}: not JSON (a number out of range); audit exports are read in their JSON form\n`,
      ),
    );
    // Nested deeper than the stack allows, in the reading or in the hashing.
    const deep = await agov([
      'verify',
      write('deep.json', {
        id: 't',
        events: [{ id: 'e', integrity_hash: 'sha256:0', metadata: JSON.parse(`${'{"a":'.repeat(2_500)}1${'}'.repeat(2_500)}`) }],
      }),
    ]);
    expect(deep.status).toBe(2);
    expect(deep.stderr).toMatch(
      /^agov verify: (cannot read .*deep\.json: not JSON|not an export: an event cannot be hashed) \(Maximum call stack size exceeded\)/,
    );
    const notJson = await agov(['verify', write('broken.json', '{not json')]);
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toMatch(
      /^agov verify: cannot read .*broken\.json: not JSON \(.+\); audit exports are read in their JSON form\n$/,
    );
    expect(await agov(['verify', write('trace.json', approved), '--trace', write('also.json', denied)])).toEqual(
      refused('agov verify: --trace applies to an audit export, and this file is a trace export\n'),
    );
  });

  it('still answers as verify-trace, with a notice that the name goes', async () => {
    expect(await agov([write('export.json', approved)], { bin: 'verify-trace' })).toEqual({
      status: 0,
      stdout: `valid: trace ${approved.trace.id}, 10 events, hash chain intact\n`,
      stderr: 'verify-trace is deprecated and goes in the next version: use `agov verify`\n',
    });
  });
});

describe('agov verify: an audit export', () => {
  const withTraces = () => ['--trace', write('approved.json', approved), '--trace', write('denied.json', denied)];
  const invalid = (eventId: AuditEvent['event_id'], problem: string) => ({
    status: 1,
    stdout: `INVALID: audit export, event ${eventId}: ${problem}\n`,
    stderr: '',
  });

  it('alone: checks its form, and says that its hashes cannot be recomputed', async () => {
    expect(await agov(['verify', write('audit.json', audit)])).toEqual({
      status: 0,
      stdout:
        'well-formed: audit export, 15 events of 2 traces; hashes not recomputed: rows carry no metadata or approval_request_id (check them against trace exports with --trace)\n',
      stderr: '',
    });
    expect(await agov(['verify', write('doubled.json', [...audit, audit[3]])])).toEqual(invalid(audit[3]!.event_id, 'it appears twice'));
    // The outcome's last event, recorded after the approval, moved to the front.
    expect(await agov(['verify', write('reordered.json', [audit[14], ...audit.slice(0, 14)])])).toEqual(
      invalid(audit[0]!.event_id, 'it is out of time order'),
    );
    const unhashed = audit.map((row, index) => (index === 4 ? { ...row, integrity_hash: 'sha256:abc' } : row));
    expect(await agov(['verify', write('unhashed.json', unhashed)])).toEqual(
      invalid(audit[4]!.event_id, 'its integrity_hash is not a sha256 hash'),
    );
    const { integrity_hash: _, ...unchained } = audit[6]!;
    expect(
      await agov([
        'verify',
        write(
          'short.json',
          audit.map((row, index) => (index === 6 ? unchained : row)),
        ),
      ]),
    ).toEqual({
      status: 2,
      stdout: '',
      stderr: 'agov verify: not an audit export: expected a JSON array of rows with event_id, trace_id, timestamp and integrity_hash\n',
    });
  });

  it('with its traces: every row is its event, every event in its span has a row', async () => {
    expect(await agov(['verify', write('audit.json', audit), ...withTraces()])).toEqual({
      status: 0,
      stdout: "valid: audit export, 15 events of 2 traces; 2 traces checked against their exports' intact chains\n",
      stderr: '',
    });
    // Events outside the export's span need no row: the first and last rows' times bound it.
    const lastAt = audit.at(-1)!.timestamp;
    const earlier = audit.filter((row) => row.timestamp !== lastAt);
    expect((await agov(['verify', write('earlier.json', earlier), ...withTraces()])).status).toBe(0);
  });

  it('with its traces: names a changed row, a row removed, a row made up and a trace rewritten since', async () => {
    const row = audit[7]!;
    const changed = audit.map((each) => (each === row ? { ...each, description: 'nothing to see' } : each));
    expect(await agov(['verify', write('changed.json', changed), ...withTraces()])).toEqual(
      invalid(row.event_id, "description differs from the trace's event"),
    );

    const removed = audit.filter((each) => each !== row);
    expect(await agov(['verify', write('removed.json', removed), ...withTraces()])).toEqual(
      invalid(row.event_id, `missing: an event of trace ${row.trace_id} recorded within the export's time span`),
    );

    const madeUp = audit.map((each) => (each === row ? { ...each, event_id: '00000000-0000-4000-8000-000000000000' } : each));
    expect(await agov(['verify', write('made-up.json', madeUp), ...withTraces()])).toEqual(
      invalid('00000000-0000-4000-8000-000000000000', `not an event of trace ${row.trace_id}`),
    );

    // Someone who can write the database changes a metadata field and rehashes the chain: the
    // trace export alone is then valid, and only a kept copy of its hashes tells.
    const trace = row.trace_id === approved.trace.id ? approved : denied;
    const events = rechained(
      trace.events.map((event, index) => (index === 1 ? { ...event, metadata: { rewritten: true } } : event)),
      trace.trace.id,
    );
    const rewritten = write('rewritten.json', { ...trace, events });
    expect((await agov(['verify', rewritten])).status).toBe(0);
    const other = trace === approved ? denied : approved;
    expect(await agov(['verify', write('audit.json', audit), '--trace', rewritten, '--trace', write('other.json', other)])).toEqual(
      invalid(trace.events[1]!.id, "integrity_hash differs from the trace's event"),
    );
  });

  it('with a trace whose own chain is broken: names its first broken event', async () => {
    const events = denied.events.map((event, index) => (index === 1 ? { ...event, status: 'forged' } : event));
    expect(await agov(['verify', write('audit.json', audit), '--trace', write('forged.json', { ...denied, events })])).toEqual(
      invalid(denied.events[1]!.id, `the hash chain of trace ${denied.trace.id} breaks at this event`),
    );
    expect(await agov(['verify', write('audit.json', audit), '--trace', write('audit-again.json', audit)])).toEqual({
      status: 2,
      stdout: '',
      stderr: `agov verify: ${join(dir, 'audit-again.json')} is not a trace export\n`,
    });
  });
});
