import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatMessages } from '@agov/db';
import { dropRedisPrefixes, FAST_DISPATCH_ENV, startWorker, type Started } from '../../../test/processes.js';
import { eventually } from '../../../test/receiver.js';
import { blockActions, type FakeSlack, signedInteraction, startFakeSlack } from '../../../test/slack-api.js';
import { action, createAgent, createPolicy } from '../../api/test/fixtures.js';
import { ownDatabase, PASSWORD, request, signupTenant, uniqueEmail, useTestApp } from '../../api/test/harness.js';

/*
 * With REDIS_URL the API records the card and its update; a worker process posts them to the
 * fake Slack. The callback itself is answered by the API.
 */
const SHARED_REDIS = 'redis://127.0.0.1:6379';
const prefix = `agov-test-${randomUUID()}`;

/** What the API and its worker run with. */
let env: Record<string, string>;
let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
  env = {
    NODE_ENV: 'production',
    DATABASE_URL: await ownDatabase(),
    REDIS_URL: SHARED_REDIS,
    QUEUE_PREFIX: prefix,
    SLACK_API_URL: slack.apiUrl,
    PUBLIC_URL: 'https://governance.example.test',
    ...FAST_DISPATCH_ENV,
    LOG_LEVEL: 'info',
    MIGRATE_ON_START: 'false',
  };
});
afterAll(async () => {
  await slack?.close();
  await dropRedisPrefixes(SHARED_REDIS, [prefix]);
});
const api = useTestApp(() => ({ env, jobs: true }));
let worker: Started;
beforeAll(async () => {
  worker = await startWorker(env);
});
afterAll(() => worker?.stop('SIGKILL'));

describe('chat cards with the worker as its own process', () => {
  it('posts the card, and updates it after a press on Approve', async () => {
    expect(api.runtime.dispatch).toBeNull();
    const tenant = await signupTenant(api.app);
    const saved = await request(api.app, tenant.admin, {
      method: 'PUT',
      url: '/api/v1/integrations/chat',
      payload: {
        mode: 'bot',
        app_id: 'A0WORKER',
        app_secret: 'worker-signing-secret',
        bot_token: 'xoxb-worker-token',
        team_id: 'T0WORKER',
        channel_id: 'C0WORKER',
        enabled: true,
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const email = uniqueEmail('rita');
    await request(api.app, tenant.admin, {
      method: 'POST',
      url: '/api/v1/users',
      payload: { name: 'Rita Reviewer', email, password: PASSWORD, role: 'reviewer' },
    });
    slack.addUser('U0RITA', email);
    const agent = await createAgent(api.app, tenant.admin);
    await createPolicy(api.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const evaluated = await request(api.app, tenant.runtimeKey, { method: 'POST', url: '/api/v1/evaluate', payload: action(agent.id) });
    const approvalId = evaluated.json().approval_request_id as string;

    const [card] = await slack.waitFor('chat.postMessage');
    expect(card!.token).toBe('xoxb-worker-token');
    expect(card!.args.channel).toBe('C0WORKER');
    expect((card!.args.attachments as { blocks: { elements?: { value?: string }[] }[] }[])[0]!.blocks[2]!.elements![0]!.value).toBe(
      approvalId,
    );
    const [stored] = await eventually(async () => {
      const rows = await api.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
      return rows.length > 0 && rows;
    });

    const press = signedInteraction(
      'worker-signing-secret',
      blockActions({
        teamId: 'T0WORKER',
        appId: 'A0WORKER',
        userId: 'U0RITA',
        action: 'approval.approve',
        approvalId,
        channel: 'C0WORKER',
      }),
    );
    const pressed = await api.app.inject({
      method: 'POST',
      url: '/api/v1/integrations/chat/callback',
      headers: press.headers,
      payload: press.body,
    });
    expect(pressed.statusCode, pressed.body).toBe(200);

    const [update] = await slack.waitFor('chat.update');
    expect(update!.args).toMatchObject({
      channel: 'C0WORKER',
      ts: stored!.ts,
      text: 'Request approved: invoice-bot – write on github (repo/app)',
    });
    const status = await request(api.app, tenant.admin, { method: 'GET', url: `/api/v1/approvals/${approvalId}/status` });
    expect(status.json()).toMatchObject({ status: 'approved', approver_name: 'Rita Reviewer' });
  });
});
