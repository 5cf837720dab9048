import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '@agov/domain/hash-chain';
import { useTestApp } from './harness.js';

const README = new URL('../../../README.md', import.meta.url);

/**
 * The README's "Quick start" section as a reader sees it: its `sh` blocks, which the reader
 * pastes in order, and its `text` blocks, what each block prints.
 */
function quickStart(): { script: string; printed: string } {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf('\n## Quick start\n');
  if (start === -1) throw new Error('README.md has no "## Quick start" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = (language: string) =>
    [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!);
  return { script: blocks('sh').join(''), printed: blocks('text').join('') };
}

describe('the README quick start, in curl, against the service on a real port', () => {
  const t = useTestApp();
  let baseUrl: string;
  let workDir: string;

  beforeAll(async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    workDir = mkdtempSync(join(tmpdir(), 'agov-quick-start-'));
  });
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('runs as printed and prints what the README says it prints', async () => {
    const { script, printed } = quickStart();
    // The run points the block at the test's server through this default.
    expect(script).toMatch(/^AGOV=\$\{AGOV:-http:\/\/127\.0\.0\.1:4000\}$/m);
    expect(printed).toContain('decision: approval_required');

    // As a reader's shell would run it, except that the first failing command ends the run.
    const run = await promisify(execFile)('bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd: workDir,
      env: { PATH: process.env.PATH, HOME: workDir, AGOV: baseUrl },
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(printed);

    // The export it saved is the file the README says anyone can check offline, and it names
    // the signed-in person as the approver, as step 6 says.
    const exported = JSON.parse(readFileSync(join(workDir, 'trace.json'), 'utf8'));
    const events = exported.events.map((event: { trace_id?: string }) => ({ ...event, trace_id: exported.trace.id }));
    expect(verifyChain(events)).toEqual({ valid: true, firstInvalidEventId: null });
    const granted = exported.events.find((event: { event_type: string }) => event.event_type === 'approval_granted');
    expect(granted.actor_name).toMatch(/^Ada Admin <ada\.\d+@example\.com>$/);
    expect(granted.metadata.approver_name).toBe('Ada Admin');
  });
});
