import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { action, createAgent, createPolicy } from '../../api/test/fixtures.js';
import { request, signupTenant, useTestApp } from '../../api/test/harness.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tsx = join(root, 'node_modules/.bin/tsx');

/** Runs the CLI from source, the way the built binary runs. */
function verifyTrace(file: string) {
  const run = spawnSync(tsx, ['--conditions=source', join(root, 'apps/cli/src/verify-trace.ts'), file], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const t = useTestApp();
let dir: string;
let trace: { id: string; events: { id: string; description: string }[] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agov-verify-'));
  const tenant = await signupTenant(t.app);
  const agent = await createAgent(t.app, tenant.admin);
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
  const evaluated = await request(t.app, tenant.runtimeKey, {
    method: 'POST',
    url: '/api/v1/evaluate',
    payload: { ...action(agent.id), context: { note: 'ünïcode ✓', n: 3 } },
  });
  trace = (await request(t.app, tenant.runtimeKey, { method: 'GET', url: `/api/v1/traces/${evaluated.json().trace_id}` })).json();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('verify-trace', () => {
  it('accepts an intact trace, in the export shape and in the detail shape', () => {
    const { id, events } = trace;
    for (const file of [
      write('export.json', { trace: { id }, events, approval_requests: [], exported_at: new Date().toISOString() }),
      write('detail.json', trace),
    ]) {
      const result = verifyTrace(file);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe(`valid: trace ${id}, 5 events, hash chain intact\n`);
    }
  });

  it('names the first tampered event and exits 1', () => {
    const events = trace.events.map((event, index) => (index === 2 ? { ...event, description: 'rewritten' } : event));
    const result = verifyTrace(write('tampered.json', { ...trace, events }));
    expect(result.status).toBe(1);
    expect(result.stdout).toBe(`INVALID: trace ${trace.id}, chain breaks at event ${trace.events[2]!.id} (position 3 of 5)\n`);
  });

  it('refuses a file that is not a trace export with exit 2', () => {
    expect(verifyTrace(write('broken.json', '{not json')).status).toBe(2);
    expect(verifyTrace(write('other.json', { hello: 'world' })).status).toBe(2);
    expect(verifyTrace(join(dir, 'missing.json')).status).toBe(2);
  });
});
