import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keyWithScopes, signupTenant, useTestApp } from '../../../apps/api/test/harness.js';
import { createClient } from '../src/index.js';
import { governedAgent, listen } from './service.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs an example with plain Node, as its README does; collects its output line by line. */
function runExample(script: string, env: Record<string, string>, args: string[] = []) {
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners: (() => void)[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    get stdout() {
      return stdout;
    },
    /** Resolves with the first line matching `pattern`'s match, once printed. */
    line(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line ${pattern} in:\n${stdout}\n${stderr}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          }
        };
        listeners.push(check);
        check();
      });
    },
    async exit() {
      const code = await exited;
      return { code, stdout, stderr };
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The README quick start's rule: payouts on stripe. */
const PAYOUT_RULE = { target_integration: 'stripe', resource_scope: 'payouts/*', data_classification: 'confidential' };

describe('examples/agent-runtime', () => {
  const t = useTestApp();

  it('waits for a reviewer, acts once approved, records the outcome and checks the chain', async () => {
    const baseUrl = await listen(t);
    const { admin, runtimeKey, agentId } = await governedAgent(t, baseUrl, 'approval_required', PAYOUT_RULE);
    const run = runExample('examples/agent-runtime/index.mjs', { AGOV_URL: baseUrl, AGOV_API_KEY: runtimeKey, AGOV_AGENT_ID: agentId });
    const [, approvalId] = await run.line(/waiting for a reviewer to decide approval (\S+)\n/);
    await admin.approveApproval(approvalId!, { approver_name: 'Rita Reviewer' });
    const { code, stdout, stderr } = await run.exit();
    const traceId = (await admin.getApproval(approvalId!)).trace_id;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(
      [
        `decision: approval_required (trace ${traceId})`,
        `waiting for a reviewer to decide approval ${approvalId}`,
        'action ran: {"payout":"payouts/po-1043","status":"paid"}',
        `trace ${traceId}: completed_with_approval, 10 events, hash chain intact`,
        '',
      ].join('\n'),
    );
  });

  it('a denied action is not run, and the script says why and exits 1', async () => {
    const baseUrl = await listen(t);
    const { runtimeKey, agentId } = await governedAgent(t, baseUrl, 'allow');
    const run = runExample('examples/agent-runtime/index.mjs', { AGOV_URL: baseUrl, AGOV_API_KEY: runtimeKey, AGOV_AGENT_ID: agentId }, [
      'wiki/home',
    ]);
    const { code, stdout } = await run.exit();
    const traceId = /trace (\S+)\)/.exec(stdout)?.[1];
    expect(code).toBe(1);
    expect(stdout).toBe(
      [
        `decision: deny (trace ${traceId})`,
        `not done: ActionDenied: No policy rule matched this action; denied by default (trace ${traceId})`,
        '',
      ].join('\n'),
    );
  });
});

describe('examples/webhook-receiver', () => {
  // Development mode sends to plain http on the local host, where the example listens.
  const t = useTestApp({ env: { NODE_ENV: 'development', WEBHOOK_TIMEOUT_MS: '5000' } });

  it('accepts the service’s signed delivery and refuses a forged one', async () => {
    const tenant = await signupTenant(t.app);
    const admin = createClient({ baseUrl: await listen(t), apiKey: (await keyWithScopes(t.app, tenant, ['admin'])).apiKey });
    const endpoint = (await admin.api.POST('/api/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['approval.approved'] } }))
      .data!.data;

    const receiver = runExample('examples/webhook-receiver/server.mjs', { WEBHOOK_SECRET: endpoint.secret, PORT: '0' });
    try {
      const [, url] = await receiver.line(/listening on (\S+)\n/);
      await admin.api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: endpoint.id } }, body: { url: `${url}/hook` } });
      const sent = (await admin.api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: endpoint.id } } })).data!;
      expect({ delivered: sent.delivered, http_status: sent.http_status }).toEqual({ delivered: true, http_status: 204 });
      const [, eventId] = await receiver.line(/received test (\S+)\n/);

      const forged = await fetch(`${url}/hook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': `sha256=${'0'.repeat(64)}`,
          'x-webhook-timestamp': new Date().toISOString(),
        },
        body: JSON.stringify({
          id: 'forged',
          event: 'approval.approved',
          timestamp: new Date().toISOString(),
          tenant_id: tenant.tenantId,
          data: {},
        }),
      });
      expect({ status: forged.status, body: await forged.text() }).toEqual({ status: 400, body: 'invalid_signature\n' });
      await receiver.line(/refused: invalid_signature\n/);
      expect(receiver.stdout).toBe(`listening on ${url}\nreceived test ${eventId}\nrefused: invalid_signature\n`);
    } finally {
      await receiver.stop();
    }
  });
});
