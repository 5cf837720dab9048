import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_DISPATCH_ENV, runToExit, TEST_SECRETS_KEY } from '../../../test/processes.js';
import { eventually, startReceiver, type Receiver } from '../../../test/receiver.js';
import { blockActions, signedInteraction, startFakeSlack, type FakeSlack } from '../../../test/slack-api.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { createTestApp, PASSWORD, request, signupTenant, uniqueEmail, type Tenant, type TestApp, useTestApp } from './harness.js';
import { approvalRequired, decision, evaluation, requestApproval } from './scenarios.js';

/*
 * Webhook signing secrets and chat secrets are stored sealed (AES-256-GCM under SECRETS_KEY)
 * and used in the clear. Development mode, so webhooks and the incoming webhook may go to
 * plain http on 127.0.0.1 where the receivers listen.
 */
/** A key's id: the first 8 hex of the SHA-256 of its bytes. */
const keyIdOf = (key: string) => createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 8);
const SEALED_UNDER = (key: string) => new RegExp(`^enc:v1:${keyIdOf(key)}:[A-Za-z0-9_-]+$`);

let slack: FakeSlack;
const receivers: Receiver[] = [];
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await slack.close();
});
async function receiver() {
  const started = await startReceiver(200);
  receivers.push(started);
  return started;
}

const unique = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;

/** A bot-mode integration of its own: secrets unique to this call, so a match in the database can only be theirs. */
function botSettings() {
  return {
    mode: 'bot',
    app_id: 'A0TESTAPP',
    app_secret: `signing-${randomBytes(16).toString('hex')}`,
    bot_token: `xoxb-${randomBytes(12).toString('hex')}`,
    team_id: unique('T'),
    channel_id: 'C0APPROVALS',
    enabled: true,
  };
}

async function saveChat(t: TestApp, tenant: Tenant, settings: Record<string, unknown>) {
  const saved = await request(t.app, tenant.admin, { method: 'PUT', url: '/api/v1/integrations/chat', payload: settings });
  expect(saved.statusCode, saved.body).toBe(200);
}

async function createWebhook(t: TestApp, tenant: Tenant, url: string): Promise<{ id: string; secret: string }> {
  const created = await client(t.app).post(tenant.admin, '/api/v1/webhooks', { url, events: ['approval.requested'] });
  expect(created.statusCode, created.body).toBe(201);
  return created.json().data;
}

const storedWebhookSecret = async (t: TestApp, id: string) =>
  (await t.runtime.database.rows<{ secret: string }>(sql`select secret from webhook_endpoints where id = ${id}`))[0]!.secret;
const storedChatSettings = async (t: TestApp, tenantId: string) =>
  (
    await t.runtime.database.rows<{ settings: Record<string, string> }>(
      sql`select settings from chat_integrations where tenant_id = ${tenantId}`,
    )
  )[0]!.settings;

describe('secrets at rest', () => {
  const t = useTestApp(() => ({
    ownDatabase: true,
    jobs: true,
    env: { NODE_ENV: 'development', ...FAST_DISPATCH_ENV, SLACK_API_URL: slack.apiUrl, LOG_LEVEL: 'trace' },
  }));

  it('stores the webhook secret and the bot secrets sealed, and deliveries, cards and callbacks still use them', async () => {
    const tenant = await signupTenant(t.app);
    const hook = await receiver();
    const endpoint = await createWebhook(t, tenant, hook.url);
    expect(endpoint.secret).toMatch(/^[0-9a-f]{64}$/);
    const bot = botSettings();
    await saveChat(t, tenant, bot);

    const storedSecret = await storedWebhookSecret(t, endpoint.id);
    expect(storedSecret).toMatch(SEALED_UNDER(TEST_SECRETS_KEY));
    expect(storedSecret).not.toContain(endpoint.secret);
    const settings = await storedChatSettings(t, tenant.tenantId);
    expect(settings).toEqual({
      app_id: 'A0TESTAPP',
      app_secret: expect.stringMatching(SEALED_UNDER(TEST_SECRETS_KEY)),
      bot_token: expect.stringMatching(SEALED_UNDER(TEST_SECRETS_KEY)),
      team_id: bot.team_id,
      channel_id: 'C0APPROVALS',
    });
    const row = JSON.stringify(settings);
    expect(row).not.toContain(bot.app_secret);
    expect(row).not.toContain(bot.bot_token);

    // A reviewer whose Slack e-mail the bot reads, and a request that needs them.
    const email = uniqueEmail('rita');
    const created = await client(t.app).post(tenant.admin, '/api/v1/users', {
      name: 'Rita Reviewer',
      email,
      password: PASSWORD,
      role: 'reviewer',
    });
    expect(created.statusCode, created.body).toBe(201);
    const slackUser = unique('U');
    slack.addUser(slackUser, email);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required' });
    const approvalId = (await evaluation(t.app, tenant, action(agent.id))).approval_request_id!;

    const [delivery] = await hook.waitFor(1);
    expect(await verify(endpoint.secret, delivery!.body, String(delivery!.headers['x-webhook-signature']))).toBe(true);
    // The card went out with the bot token, opened for the call.
    await eventually(async () => slack.callsTo('chat.postMessage').some((call) => call.token === bot.bot_token));

    const press = blockActions({ teamId: bot.team_id, userId: slackUser, action: 'approval.approve', approvalId });
    const callback = ({ headers, body }: { headers: Record<string, string>; body: string }) =>
      t.app.inject({ method: 'POST', url: '/api/v1/integrations/chat/callback', headers, payload: body });
    expect((await callback(signedInteraction(`not-${bot.app_secret}`, press))).statusCode).toBe(403);
    const pressed = await callback(signedInteraction(bot.app_secret, press));
    expect(pressed.statusCode, pressed.body).toBe(200);
    const status = await client(t.app).get(tenant.admin, `/api/v1/approvals/${approvalId}/status`);
    expect(status.json()).toMatchObject({ status: 'approved', approver_name: 'Rita Reviewer' });

    // Neither the secrets nor their sealed form leave the service, in answers or in logs.
    const answers = await Promise.all(
      ['/api/v1/webhooks', `/api/v1/webhooks/${endpoint.id}`, '/api/v1/integrations/chat'].map((url) =>
        client(t.app).get(tenant.admin, url),
      ),
    );
    const logs = t.logs.join('\n');
    for (const text of [...answers.map((answer) => answer.body), logs]) {
      for (const secret of [endpoint.secret, bot.app_secret, bot.bot_token, storedSecret, settings.app_secret!, settings.bot_token!]) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('stores the incoming-webhook URL sealed, and the Test action still posts to it', async () => {
    const tenant = await signupTenant(t.app);
    await saveChat(t, tenant, { mode: 'incoming_webhook', webhook_url: slack.incomingWebhookUrl, enabled: true });

    const settings = await storedChatSettings(t, tenant.tenantId);
    expect(Object.keys(settings)).toEqual(['webhook_url']);
    expect(settings.webhook_url).toMatch(SEALED_UNDER(TEST_SECRETS_KEY));

    const before = slack.incoming.length;
    const tested = await client(t.app).post(tenant.admin, '/api/v1/integrations/chat/test');
    expect(tested.json()).toEqual({ data: { delivered: true, error: null } });
    expect(slack.incoming).toHaveLength(before + 1);
  });

  it('binds a sealed value to its row: copied to another, it is refused rather than used', async () => {
    const tenant = await signupTenant(t.app);
    const hook = await receiver();
    const first = await createWebhook(t, tenant, hook.url);
    const second = await createWebhook(t, tenant, hook.url);
    await t.runtime.database.rows(
      sql`update webhook_endpoints set secret = (select secret from webhook_endpoints where id = ${first.id}) where id = ${second.id}`,
    );

    const tested = await client(t.app).post(tenant.admin, `/api/v1/webhooks/${second.id}/test`);
    expect(tested.statusCode).toBe(500);
    expect(hook.received).toHaveLength(0);
    expect(t.logs.join('\n')).toContain(`failed its integrity check`);
  });
});

describe('npm run secrets:rotate', () => {
  const NEW_KEY = Buffer.alloc(32, 9).toString('base64');
  const before = useTestApp(() => ({ ownDatabase: true, env: { NODE_ENV: 'development', SLACK_API_URL: slack.apiUrl } }));

  const rotate = () =>
    runToExit(process.execPath, ['packages/runtime/dist/cli/rotate-secrets.js'], {
      NODE_ENV: 'development',
      DATABASE_URL: before.runtime.config.databaseUrl!,
      SECRETS_KEY: NEW_KEY,
      SECRETS_KEY_PREVIOUS: TEST_SECRETS_KEY,
      LOG_LEVEL: 'warn',
    });

  it('re-encrypts sealed and plain stored secrets under the new key, in batches, once', async () => {
    const tenant = await signupTenant(before.app);
    const hook = await receiver();
    const sealed = await createWebhook(before, tenant, hook.url);
    const legacy = await createWebhook(before, tenant, hook.url);
    const legacySecret = randomBytes(32).toString('hex');
    // As stored before secrets were encrypted: in the clear.
    await before.runtime.database.rows(sql`update webhook_endpoints set secret = ${legacySecret} where id = ${legacy.id}`);
    await before.runtime.database.rows(sql`
      insert into webhook_endpoints (tenant_id, url, events, secret)
      select ${tenant.tenantId}, 'https://example.test/' || n, '{approval.requested}', md5(n::text) || md5(n::text)
      from generate_series(1, 250) as n`);
    const bot = botSettings();
    await saveChat(before, tenant, bot);
    const incomingTenant = await signupTenant(before.app);
    await before.runtime.database.rows(
      sql`insert into chat_integrations (tenant_id, mode, enabled, settings)
          values (${incomingTenant.tenantId}, 'incoming_webhook', true, ${JSON.stringify({ webhook_url: slack.incomingWebhookUrl })}::jsonb)`,
    );

    // Plain values are read as they are until then.
    const legacyTest = await client(before.app).post(tenant.admin, `/api/v1/webhooks/${legacy.id}/test`);
    expect(legacyTest.json()).toMatchObject({ delivered: true });
    const [legacyDelivery] = await hook.waitFor(1);
    expect(await verify(legacySecret, legacyDelivery!.body, String(legacyDelivery!.headers['x-webhook-signature']))).toBe(true);

    // A first approval makes the tenant's grant signing key.
    const approving = await approvalRequired(before.app);
    const approveOne = async (app: TestApp['app']) => {
      const pending = await requestApproval(app, approving.tenant, approving.agent.id);
      await decision(app, approving.tenant, pending.id, 'approve', { approver_name: 'Ada' });
      const { grant } = (await client(app).get(approving.tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json();
      return JSON.parse(Buffer.from(grant.split('.')[0], 'base64url').toString()).kid as string;
    };
    const signingKid = await approveOne(before.app);

    // 252 webhook secrets, 2 bot secrets, 1 incoming-webhook URL and 1 grant signing key.
    const newKeyId = keyIdOf(NEW_KEY);
    const first = await rotate();
    expect(first.output.trim()).toBe(`re-encrypted 256 secrets under key ${newKeyId}; 0 were already under it`);
    expect(first.code).toBe(0);
    const again = await rotate();
    expect(again.output.trim()).toBe(`re-encrypted 0 secrets under key ${newKeyId}; 256 were already under it`);

    const secrets = await before.runtime.database.rows<{ value: string }>(sql`
      select secret as value from webhook_endpoints
      union all select value from chat_integrations, jsonb_each_text(settings) where key in ('app_secret', 'bot_token', 'webhook_url')
      union all select private_key from grant_signing_keys`);
    expect(secrets).toHaveLength(256);
    for (const { value } of secrets) expect(value).toMatch(SEALED_UNDER(NEW_KEY));

    // The new key alone now reads everything.
    const after = await createTestApp({
      env: { NODE_ENV: 'development', DATABASE_URL: before.runtime.config.databaseUrl!, SLACK_API_URL: slack.apiUrl, SECRETS_KEY: NEW_KEY },
    });
    try {
      for (const endpoint of [sealed, { id: legacy.id, secret: legacySecret }]) {
        const received = hook.received.length;
        const tested = await client(after.app).post(tenant.admin, `/api/v1/webhooks/${endpoint.id}/test`);
        expect(tested.json()).toMatchObject({ delivered: true });
        const delivery = hook.received[received]!;
        expect(await verify(endpoint.secret, delivery.body, String(delivery.headers['x-webhook-signature']))).toBe(true);
      }
      const botTest = await client(after.app).post(tenant.admin, '/api/v1/integrations/chat/test');
      expect(botTest.json()).toEqual({ data: { delivered: true, error: null } });
      expect(slack.callsTo('chat.postMessage').at(-1)!.token).toBe(bot.bot_token);
      const incoming = slack.incoming.length;
      const incomingTest = await client(after.app).post(incomingTenant.admin, '/api/v1/integrations/chat/test');
      expect(incomingTest.json()).toEqual({ data: { delivered: true, error: null } });
      expect(slack.incoming).toHaveLength(incoming + 1);
      // The grant signing key opens under the new key: the next grant is signed with it.
      expect(await approveOne(after.app)).toBe(signingKid);
    } finally {
      await after.close();
    }
  });
});
