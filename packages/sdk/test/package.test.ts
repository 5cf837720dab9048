import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const sdk = fileURLToPath(new URL('..', import.meta.url));
const typescript = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

/** Installs the packed tarball into an empty project, as a third party would, from the npm cache. */
describe('the packed package', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agov-sdk-pack-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (command: string, args: string[], cwd = dir) => {
    try {
      return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const { stdout, stderr } = error as { stdout: string; stderr: string };
      throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`);
    }
  };

  it('packs its build, types and README only, installs, and runs from plain Node ESM and type-checks', () => {
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], sdk)) as [
      { filename: string; files: { path: string }[] },
    ];
    const files = packed.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts']),
    );
    expect(files.filter((path) => path.startsWith('test/') || path.startsWith('scripts/') || path.endsWith('.tsbuildinfo'))).toEqual([]);

    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, packed.filename)]);

    // The README's worked examples of the hash chain and the action digest, and a signature made with Node's own HMAC.
    writeFileSync(
      join(dir, 'check.mjs'),
      `import { createHmac } from 'node:crypto';
import { actionDigest, createClient, eventHash, verifyWebhook, GovernanceError, ActionDenied } from '@agov/sdk';
const event = { id: 'a1b2c3d4-0001-4e5f-8a9b-0c1d2e3f4a51', event_type: 'trace_initiated', actor_type: 'agent', actor_name: 'invoice-bot',
  description: 'Trace started for write on github', status: 'started', timestamp: '2024-05-01T12:00:00.000Z', policy_version: null,
  approval_request_id: null, metadata: { operation: 'write', resource_scope: 'repo/main/*' }, integrity_hash: null };
console.log(await eventHash('', '3f0c9a52-6d1e-4b7a-9c2f-8e5d4a1b7c60', event));
console.log(await actionDigest({ agent_id: '3f0c9a52-6d1e-4b7a-9c2f-8e5d4a1b7c60', operation: 'write', target_integration: 'github',
  resource_scope: 'repo/main/*', data_classification: 'internal', context: { ticket: 'OPS-7' } }));
const secret = 'a'.repeat(64), body = '{"id":"e1","event":"test","timestamp":"t","tenant_id":"x","data":{}}';
const signature = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
console.log((await verifyWebhook(body, { 'x-webhook-signature': signature, 'x-webhook-timestamp': new Date().toISOString() }, secret)).event);
console.log(typeof createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ai_x' }).guard, new GovernanceError({ error: 'e', message: 'm', status: 400 }) instanceof Error, ActionDenied.name);
`,
    );
    expect(run(process.execPath, ['check.mjs'])).toBe(
      'sha256:0ff2232a7d85b5a1ebc6f11411bfadf695516745063b3299393c343483f2455b\n' +
        'sha256:e0de5070a50d11d8c338d8dcb66dd3b88bc529e7b2b7abbb38a7644ae64a0c5e\ntest\nfunction true ActionDenied\n',
    );

    writeFileSync(
      join(dir, 'check.ts'),
      `import { createClient, type GovernanceError, type Schema } from '@agov/sdk';
const client = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ai_x' });
export async function run(agentId: string): Promise<string> {
  const evaluation = await client.evaluate({ agent_id: agentId, operation: 'read', target_integration: 'crm', resource_scope: 'contacts/*', data_classification: 'internal', context: { ticket: 42, tags: ['a'] } });
  const failed: GovernanceError | null = null;
  const approval: Schema<'Approval'> | null = null;
  return evaluation.decision + String(failed) + String(approval);
}
`,
    );
    run(process.execPath, [
      typescript,
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--target',
      'es2022',
      '--lib',
      'es2023,dom',
      'check.ts',
    ]);
    // Packing, installing and compiling take a while on a busy machine.
  }, 180_000);
});
