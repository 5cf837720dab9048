import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../test/slack-api.js';
import { client } from './client.js';
import { type Credential, keyWithScopes, request, sessionWithRole, signupTenant, type Tenant, useTestApp } from './harness.js';

/*
 * Chat settings and the Test action. Development mode, so the incoming webhook may be the
 * fake Slack's plain-http URL on 127.0.0.1.
 */
const PUBLIC_URL = 'https://governance.example.test';
const BOT_TOKEN = 'xoxb-1111-2222-settingsTOKEN';
const APP_SECRET = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';

let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(() => slack.close());
const t = useTestApp(() => ({ env: { NODE_ENV: 'development', SLACK_API_URL: slack.apiUrl, PUBLIC_URL } }));
const api = client(t);

const bot = (overrides: Record<string, unknown> = {}) => ({
  mode: 'bot',
  app_id: 'A0TESTAPP',
  app_secret: APP_SECRET,
  bot_token: BOT_TOKEN,
  team_id: 'T0TEAM',
  channel_id: 'C0APPROVALS',
  enabled: true,
  ...overrides,
});
const putAs = (credential: Credential, body: unknown) =>
  request(t.app, credential, { method: 'PUT', url: '/api/v1/integrations/chat', payload: body as object });
const put = (tenant: Tenant, body: unknown) => putAs(tenant.admin, body);
const settingsOf = async (tenant: Tenant) => {
  const response = await api.get(tenant.admin, '/api/v1/integrations/chat');
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};

describe('chat settings', () => {
  it('reads as not configured before anything is saved', async () => {
    const tenant = await signupTenant(t.app);
    expect(await settingsOf(tenant)).toEqual({ data: { mode: null, enabled: false } });
  });

  it('saves bot mode and never returns the signing secret or the bot token', async () => {
    const tenant = await signupTenant(t.app);
    const saved = await put(tenant, bot());
    expect(saved.statusCode, saved.body).toBe(200);
    const expected = {
      mode: 'bot',
      enabled: true,
      app_id: 'A0TESTAPP',
      team_id: 'T0TEAM',
      channel_id: 'C0APPROVALS',
      escalation_channel: null,
      has_app_secret: true,
      has_bot_token: true,
      updated_at: expect.any(String),
    };
    expect(saved.json()).toEqual({ data: expected });
    expect(await settingsOf(tenant)).toEqual({ data: expected });
    for (const text of [saved.body, JSON.stringify(await settingsOf(tenant)), t.logs.join('')]) {
      expect(text).not.toContain(BOT_TOKEN);
      expect(text).not.toContain(APP_SECRET);
    }
  });

  it('saves incoming-webhook mode and treats the URL as a secret', async () => {
    const tenant = await signupTenant(t.app);
    const saved = await put(tenant, { mode: 'incoming_webhook', webhook_url: slack.incomingWebhookUrl, enabled: false });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({
      data: { mode: 'incoming_webhook', enabled: false, has_webhook_url: true, updated_at: expect.any(String) },
    });
    expect(JSON.stringify(await settingsOf(tenant))).not.toContain('incomingsecret');
  });

  it('keeps stored secrets that a PUT leaves out while the mode stays, and uses them', async () => {
    const tenant = await signupTenant(t.app);
    await put(tenant, bot());
    const { app_secret: _secret, bot_token: _token, ...withoutSecrets } = bot({ channel_id: 'C0ELSEWHERE', enabled: false });
    const saved = await put(tenant, withoutSecrets);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toMatchObject({ channel_id: 'C0ELSEWHERE', enabled: false, has_bot_token: true });

    const tested = await api.post(tenant.admin, '/api/v1/integrations/chat/test');
    expect(tested.json()).toEqual({ data: { delivered: true, error: null } });
    const call = slack.callsTo('chat.postMessage').at(-1)!;
    expect(call.token).toBe(BOT_TOKEN);
    expect(call.args.channel).toBe('C0ELSEWHERE');
  });

  it('requires every setting of a new mode, secrets included, naming what is missing', async () => {
    const tenant = await signupTenant(t.app);
    await put(tenant, { mode: 'incoming_webhook', webhook_url: slack.incomingWebhookUrl, enabled: true });
    const response = await put(tenant, { mode: 'bot', app_id: 'A0TESTAPP', team_id: 'T0TEAM', channel_id: 'C0X', enabled: true });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: 'validation_error',
      status: 400,
      details: {
        fields: [
          { field: 'app_secret', message: 'is required in bot mode' },
          { field: 'bot_token', message: 'is required in bot mode' },
        ],
      },
    });
    // Nothing was written.
    expect((await settingsOf(tenant)).data.mode).toBe('incoming_webhook');
  });

  it("refuses the other mode's settings, unknown fields and malformed values", async () => {
    const tenant = await signupTenant(t.app);
    const foreign = await put(tenant, {
      mode: 'incoming_webhook',
      webhook_url: slack.incomingWebhookUrl,
      team_id: 'T0TEAM',
      enabled: true,
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().details).toEqual({ fields: [{ field: 'team_id', message: 'is not a setting of incoming_webhook mode' }] });

    for (const body of [
      bot({ color: 'red' }),
      bot({ bot_token: 'xoxp-user-token' }),
      bot({ mode: 'teams' }),
      bot({ enabled: 'yes' }),
      bot({ channel_id: '#approvals' }),
      { mode: 'bot' },
    ]) {
      const response = await put(tenant, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error).toBe('validation_error');
    }
    expect(await settingsOf(tenant)).toEqual({ data: { mode: null, enabled: false } });
  });

  it('checks incoming-webhook URLs with the webhook target rules', async () => {
    const tenant = await signupTenant(t.app);
    for (const webhook_url of ['ftp://hooks.slack.example/x', 'http://hooks.slack.example/x', 'https://user:pw@hooks.slack.example/x']) {
      const response = await put(tenant, { mode: 'incoming_webhook', webhook_url, enabled: true });
      expect(response.statusCode, webhook_url).toBe(400);
      expect(response.json().details.fields[0].field).toBe('webhook_url');
      expect(response.body).not.toContain(webhook_url);
    }
  });

  it('is for admins only, and each tenant sees its own', async () => {
    const tenant = await signupTenant(t.app);
    await put(tenant, bot());
    const reviewer = await sessionWithRole(t.app, tenant, 'reviewer');
    for (const credential of [reviewer, tenant.runtimeKey]) {
      expect((await api.get(credential, '/api/v1/integrations/chat')).statusCode).toBe(403);
      expect((await putAs(credential, bot())).statusCode).toBe(403);
      expect((await api.post(credential, '/api/v1/integrations/chat/test')).statusCode).toBe(403);
    }
    expect((await api.get(null, '/api/v1/integrations/chat')).statusCode).toBe(401);
    const adminKey = await keyWithScopes(t.app, tenant, ['admin']);
    expect((await api.get(adminKey, '/api/v1/integrations/chat')).json().data.mode).toBe('bot');

    const other = await signupTenant(t.app);
    expect(await settingsOf(other)).toEqual({ data: { mode: null, enabled: false } });
  });
});

describe('the Test action', () => {
  it('answers 409 while chat is not configured', async () => {
    const tenant = await signupTenant(t.app);
    const response = await api.post(tenant.admin, '/api/v1/integrations/chat/test');
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error: 'conflict', status: 409, request_id: expect.any(String) });
  });

  it('posts a card labelled as a test, with only the dashboard link, through the bot', async () => {
    const tenant = await signupTenant(t.app);
    await put(tenant, bot({ enabled: false }));
    const before = slack.callsTo('chat.postMessage').length;
    const response = await api.post(tenant.admin, '/api/v1/integrations/chat/test');
    expect(response.json()).toEqual({ data: { delivered: true, error: null } });

    const [call] = slack.callsTo('chat.postMessage').slice(before);
    expect(call!.token).toBe(BOT_TOKEN);
    expect(call!.args).toMatchObject({ channel: 'C0APPROVALS', text: 'Test notification from Agent Governance' });
    expect(call!.args.attachments).toBeUndefined();
    const blocks = call!.args.blocks as Record<string, unknown>[];
    expect(blocks.map((block) => block.type)).toEqual(['header', 'section', 'actions', 'context']);
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Test notification' } });
    expect(blocks[2]).toEqual({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: 'approval.open',
          url: `${PUBLIC_URL}/approvals`,
          text: { type: 'plain_text', text: 'Dashboard' },
          confirm: {
            title: { type: 'plain_text', text: 'Open the dashboard?' },
            text: { type: 'plain_text', text: 'The request opens in the Agent Governance dashboard in your browser.' },
            confirm: { type: 'plain_text', text: 'Open' },
            deny: { type: 'plain_text', text: 'Cancel' },
          },
        },
      ],
    });
    expect((blocks[3]!.elements as { text: string }[])[0]!.text).toMatch(
      /^Test message · <!date\^\d+\^\{date_short_pretty\} at \{time\}\|\d{4}-.+Z>$/,
    );
  });

  it("reports Slack's refusal without retrying", async () => {
    const tenant = await signupTenant(t.app);
    await put(tenant, bot());
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    const response = await api.post(tenant.admin, '/api/v1/integrations/chat/test');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { delivered: false, error: 'slack chat.postMessage failed: channel_not_found' } });
  });

  it('posts the test card to the incoming webhook', async () => {
    const tenant = await signupTenant(t.app);
    await put(tenant, { mode: 'incoming_webhook', webhook_url: slack.incomingWebhookUrl, enabled: true });
    const before = slack.incoming.length;
    const response = await api.post(tenant.admin, '/api/v1/integrations/chat/test');
    expect(response.json()).toEqual({ data: { delivered: true, error: null } });
    const [post] = slack.incoming.slice(before);
    expect(post!.headers['content-type']).toBe('application/json');
    expect(post!.body.text).toBe('Test notification from Agent Governance');
    expect((post!.body.blocks as { type: string }[]).map((block) => block.type)).toEqual(['header', 'section', 'actions', 'context']);

    slack.failNext('incoming', { status: 404, error: 'no_service' });
    const failed = await api.post(tenant.admin, '/api/v1/integrations/chat/test');
    expect(failed.json()).toEqual({ data: { delivered: false, error: 'incoming webhook: HTTP 404' } });
  });
});
