import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatMessages, outbox } from '@agov/db';
import { eventually } from '../../../test/receiver.js';
import { FAST_DISPATCH_ENV } from '../../../test/processes.js';
import { startFakeSlack, type FakeSlack, type SlackCall } from '../../../test/slack-api.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { DISPATCH_DATABASES, request, signupTenant, type Tenant, useTestApp } from './harness.js';
import { evaluation } from './scenarios.js';

/*
 * Approval cards leave through the outbox, dispatched in-process (no Redis), to a fake Slack
 * at SLACK_API_URL. Retries shortened.
 */
const PUBLIC_URL = 'https://governance.example.test';

describe.each(Object.entries(DISPATCH_DATABASES))('approval cards on %s', (_name, database) => {
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await startFakeSlack();
  });
  afterAll(() => slack.close());
  const t = useTestApp(async () => ({
    jobs: true,
    env: {
      NODE_ENV: 'development',
      ...(await database()),
      ...FAST_DISPATCH_ENV,
      SLACK_API_URL: slack.apiUrl,
      PUBLIC_URL,
      APPROVAL_EXPIRY_SWEEP_MS: '200',
    },
  }));
  const api = client(t);

  /** A tenant posting cards to a channel of its own, and an agent needing approval for `classification`. */
  async function botTenant(settings: Record<string, unknown> = {}, rationale = 'Repository writes need a human reviewer.') {
    const tenant = await signupTenant(t.app);
    const channel = `C${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
    const saved = await request(t.app, tenant.admin, {
      method: 'PUT',
      url: '/api/v1/integrations/chat',
      payload: {
        mode: 'bot',
        app_id: 'A0TESTAPP',
        app_secret: 'cards-signing-secret',
        bot_token: 'xoxb-cards-token',
        team_id: 'T0TEAM',
        channel_id: channel,
        enabled: true,
        ...settings,
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const agent = await createAgent(t.app, tenant.admin, { name: 'invoice-bot <ops>' });
    for (const data_classification of ['public', 'internal', 'confidential', 'restricted']) {
      await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', data_classification, rationale });
    }
    const requestApproval = async (data_classification = 'internal') =>
      (await evaluation(t.app, tenant, action(agent.id, { data_classification }))).approval_request_id!;
    return { tenant, agent, channel, requestApproval };
  }

  const postsTo = (channel: string) => slack.callsTo('chat.postMessage').filter((call) => call.args.channel === channel);
  const cardIn = (channel: string, n = 1) => eventually(async () => postsTo(channel)[n - 1], 10_000, `card #${n} in ${channel}`);
  const outboxOf = (tenant: Tenant, kind: string) =>
    t.runtime.database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, kind)));
  const attachment = (call: SlackCall) => (call.args.attachments as { color: string; blocks: Record<string, unknown>[] }[])[0]!;
  const confirm = (title: string, text: unknown, yes: string) => ({
    title: { type: 'plain_text', text: title },
    text,
    confirm: { type: 'plain_text', text: yes },
    deny: { type: 'plain_text', text: 'Cancel' },
  });
  const dashboardButton = (url: string) => ({
    type: 'button',
    action_id: 'approval.open',
    url,
    text: { type: 'plain_text', text: 'Dashboard' },
    confirm: confirm(
      'Open the dashboard?',
      { type: 'plain_text', text: 'The request opens in the Agent Governance dashboard in your browser.' },
      'Open',
    ),
  });

  it('posts an interactive card for each approval request, field by field, and keeps its place', async () => {
    const reason = `${'Writes to production repositories need a second pair of eyes. '.repeat(10)}`.slice(0, 600);
    const { tenant, channel, requestApproval } = await botTenant({}, reason);
    const approvalId = await requestApproval('restricted');
    const card = await cardIn(channel);

    const approval = (await api.get(tenant.admin, `/api/v1/approvals/${approvalId}`)).json().data;
    expect(card.token).toBe('xoxb-cards-token');
    expect(card.args.text).toBe('Approval required: invoice-bot &lt;ops&gt; – write on github (repo/app) (critical risk)');
    expect(card.args.blocks).toEqual([{ type: 'header', text: { type: 'plain_text', text: 'Approval required: invoice-bot <ops>' } }]);
    const { color, blocks } = attachment(card);
    expect(color).toBe('#E01E5A');
    expect(blocks).toHaveLength(4);
    expect(blocks[0]).toEqual({
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: '*Agent*\ninvoice-bot &lt;ops&gt;' },
        { type: 'mrkdwn', text: '*Operation*\nwrite on github (repo/app)' },
        { type: 'mrkdwn', text: '*Risk level*\nCritical' },
        { type: 'mrkdwn', text: '*Data classification*\nrestricted' },
      ],
    });
    // The flag reason is cut to 500 characters, the last an ellipsis.
    const shown = (blocks[1] as { text: { text: string } }).text.text.replace('*Flag reason*\n', '');
    expect(Array.from(shown)).toHaveLength(500);
    expect(shown).toBe(`${reason.slice(0, 499)}…`);
    expect(blocks[2]).toEqual({
      type: 'actions',
      block_id: 'approval_actions',
      elements: [
        {
          type: 'button',
          action_id: 'approval.approve',
          value: approvalId,
          style: 'primary',
          text: { type: 'plain_text', text: 'Approve' },
          confirm: confirm(
            'Approve this request?',
            { type: 'mrkdwn', text: '*invoice-bot &lt;ops&gt;* may then write on github (repo/app).' },
            'Approve',
          ),
        },
        {
          type: 'button',
          action_id: 'approval.deny',
          value: approvalId,
          style: 'danger',
          text: { type: 'plain_text', text: 'Deny' },
          confirm: confirm(
            'Deny this request?',
            { type: 'mrkdwn', text: '*invoice-bot &lt;ops&gt;* will not write on github (repo/app).' },
            'Deny',
          ),
        },
        dashboardButton(`${PUBLIC_URL}/approvals/${approvalId}`),
      ],
    });
    const requestedAt = new Date(approval.requested_at);
    expect(blocks[3]).toEqual({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Approval ${approvalId.slice(0, 8)} · requested <!date^${Math.floor(requestedAt.getTime() / 1000)}^{date_short_pretty} at {time}|${approval.requested_at}>`,
        },
      ],
    });

    const [stored] = await eventually(async () => {
      const rows = await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
      return rows.length > 0 && rows;
    });
    expect(stored).toMatchObject({ tenantId: tenant.tenantId, channel, ts: expect.stringMatching(/^1700000000\.\d{6}$/) });
    await eventually(async () => (await outboxOf(tenant, 'chat_card')).length === 0, 5_000, 'chat_card retired');
  });

  it('colours the card by risk: green, blue, orange, red for low … critical', async () => {
    const { channel, requestApproval } = await botTenant();
    for (const classification of ['public', 'internal', 'confidential', 'restricted']) await requestApproval(classification);
    await cardIn(channel, 4);
    const byRisk = Object.fromEntries(
      postsTo(channel).map((call) => [(attachment(call).blocks[0]!.fields as { text: string }[])[2]!.text, attachment(call).color]),
    );
    expect(byRisk).toEqual({
      '*Risk level*\nLow': '#2EB67D',
      '*Risk level*\nMedium': '#36C5F0',
      '*Risk level*\nHigh': '#E8912D',
      '*Risk level*\nCritical': '#E01E5A',
    });
  });

  it('updates the card in place when the request is decided through the API', async () => {
    const { tenant, channel, requestApproval } = await botTenant();
    const approvalId = await requestApproval();
    const card = await cardIn(channel);
    const [posted] = await eventually(async () => {
      const rows = await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
      return rows.length > 0 && rows;
    });
    const ts = posted!.ts;
    expect(ts).toMatch(/^1700000000\./);
    const decided = await api.post(tenant.admin, `/api/v1/approvals/${approvalId}/deny`, {
      approver_name: 'Rita Reviewer',
      decision_note: 'Not <now>',
    });
    expect(decided.statusCode, decided.body).toBe(200);

    const update = await eventually(async () => slack.callsTo('chat.update').find((call) => call.args.ts === ts));
    expect(update.token).toBe('xoxb-cards-token');
    expect(update.args.channel).toBe(card.args.channel);
    expect(update.args.text).toBe('Request denied: invoice-bot &lt;ops&gt; – write on github (repo/app)');
    expect(update.args.blocks).toEqual([{ type: 'header', text: { type: 'plain_text', text: 'Request denied' } }]);
    const decidedAt = new Date(decided.json().data.decided_at);
    expect(attachment(update)).toEqual({
      color: '#E01E5A',
      blocks: [
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*Decision*\nDenied by Rita Reviewer' },
            {
              type: 'mrkdwn',
              text: `*Decided at*\n<!date^${Math.floor(decidedAt.getTime() / 1000)}^{date_short_pretty} at {time}|${decidedAt.toISOString()}>`,
            },
            { type: 'mrkdwn', text: '*Agent*\ninvoice-bot &lt;ops&gt;' },
            { type: 'mrkdwn', text: '*Operation*\nwrite on github (repo/app)' },
          ],
        },
        { type: 'section', text: { type: 'mrkdwn', text: '*Note*\nNot &lt;now&gt;' } },
        { type: 'actions', elements: [dashboardButton(`${PUBLIC_URL}/approvals/${approvalId}`)] },
        attachment(card).blocks[3] as Record<string, unknown>,
      ],
    });
    await eventually(async () => (await outboxOf(tenant, 'chat_card_update')).length === 0, 5_000, 'update retired');
  });

  it('retries a failed post on the webhook schedule, while evaluate answers at once', async () => {
    const { tenant, channel, requestApproval } = await botTenant();
    slack.failNext('chat.postMessage', { status: 500 });
    slack.failNext('chat.postMessage', { error: 'ratelimited' });
    const approvalId = await requestApproval();
    // The request exists whatever happens in Slack.
    expect((await api.get(tenant.admin, `/api/v1/approvals/${approvalId}/status`)).json()).toMatchObject({ status: 'pending' });

    const card = await eventually(async () => postsTo(channel).find((call) => (call.args.attachments as unknown[] | undefined)?.length));
    expect(attachment(card).blocks[2]).toMatchObject({ elements: [{ value: approvalId }, { value: approvalId }, {}] });
    await eventually(async () => (await outboxOf(tenant, 'chat_card')).length === 0, 5_000, 'chat_card retired');
    expect(t.logs.join('')).toMatch(/chat message not delivered; it is tried again later/);
  });

  it('gives up after five attempts, and logs it without the token', async () => {
    const { tenant, channel, requestApproval } = await botTenant({ bot_token: 'xoxb-never-logged-token' });
    slack.failNext('chat.postMessage', { error: 'channel_not_found' }, 5);
    await requestApproval();
    await eventually(async () => (await outboxOf(tenant, 'chat_card')).length === 0, 10_000, 'chat_card given up');
    expect(slack.callsTo('chat.postMessage').filter((call) => call.args.channel === channel)).toHaveLength(5);
    const logs = t.logs.join('');
    expect(logs).toMatch(/slack chat.postMessage failed: channel_not_found.*chat message not delivered; given up/);
    expect(logs).not.toContain('xoxb-never-logged-token');
  });

  it('posts a link-only card through an incoming webhook', async () => {
    const tenant = await signupTenant(t.app);
    const saved = await request(t.app, tenant.admin, {
      method: 'PUT',
      url: '/api/v1/integrations/chat',
      payload: { mode: 'incoming_webhook', webhook_url: slack.incomingWebhookUrl, enabled: true },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const agent = await createAgent(t.app, tenant.admin, { name: 'webhook-bot' });
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', data_classification: 'confidential' });
    const approvalId = (await evaluation(t.app, tenant, action(agent.id, { data_classification: 'confidential' }))).approval_request_id!;

    const post = await eventually(async () => slack.incoming.find((p) => JSON.stringify(p.body).includes(approvalId)));
    const [details] = (post.body.attachments as { color: string; blocks: Record<string, unknown>[] }[])!;
    expect(details!.color).toBe('#E8912D');
    expect(details!.blocks.map((block) => block.type)).toEqual(['section', 'section', 'actions', 'context']);
    expect(details!.blocks[2]).toEqual({
      type: 'actions',
      block_id: 'approval_actions',
      elements: [dashboardButton(`${PUBLIC_URL}/approvals/${approvalId}`)],
    });
    await eventually(async () => (await outboxOf(tenant, 'chat_card')).length === 0, 5_000, 'chat_card retired');
    expect(await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId))).toEqual([]);
  });

  it('escapes the agent name, operation and resource scope in the text of every card, bot and incoming webhook alike', async () => {
    const hostile = { operation: 'write <!here>', resource_scope: '<https://x.test|repo> & co' };
    const escaped =
      'Approval required: &lt;!channel&gt; bot – write &lt;!here&gt; on github (&lt;https://x.test|repo&gt; &amp; co) (medium risk)';
    const requestFrom = async (tenant: Tenant) => {
      const agent = await createAgent(t.app, tenant.admin, { name: '<!channel> bot' });
      await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', operation: '*', resource_scope: '*' });
      return (await evaluation(t.app, tenant, action(agent.id, hostile))).approval_request_id!;
    };

    const bot = await botTenant();
    const approvalId = await requestFrom(bot.tenant);
    const card = await cardIn(bot.channel);
    expect(card.args.text).toBe(escaped);
    const [posted] = await eventually(async () => {
      const rows = await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
      return rows.length > 0 && rows;
    });
    const denied = await api.post(bot.tenant.admin, `/api/v1/approvals/${approvalId}/deny`, { approver_name: 'Rita Reviewer' });
    expect(denied.statusCode, denied.body).toBe(200);
    const update = await eventually(async () => slack.callsTo('chat.update').find((call) => call.args.ts === posted!.ts));
    expect(update.args.text).toBe(
      'Request denied: &lt;!channel&gt; bot – write &lt;!here&gt; on github (&lt;https://x.test|repo&gt; &amp; co)',
    );

    const webhook = await signupTenant(t.app);
    const saved = await request(t.app, webhook.admin, {
      method: 'PUT',
      url: '/api/v1/integrations/chat',
      payload: { mode: 'incoming_webhook', webhook_url: slack.incomingWebhookUrl, enabled: true },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const linkOnly = await requestFrom(webhook);
    const post = await eventually(async () => slack.incoming.find((p) => JSON.stringify(p.body).includes(linkOnly)));
    expect(post.body.text).toBe(escaped);
  });

  it('posts nothing while the integration is disabled', async () => {
    const { tenant, channel, requestApproval } = await botTenant({ enabled: false });
    await requestApproval();
    await eventually(async () => (await outboxOf(tenant, 'chat_card')).length === 0, 5_000, 'chat_card dropped');
    expect(postsTo(channel)).toEqual([]);
  });

  it('updates the card when the request expires', async () => {
    // Long enough for the card to be posted first, even on a busy machine.
    const { tenant, agent, channel } = await botTenant();
    await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', priority: 90, max_session_ttl: 4 });
    const approvalId = (await evaluation(t.app, tenant, action(agent.id))).approval_request_id!;
    await cardIn(channel);
    const [posted] = await eventually(async () => {
      const rows = await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
      return rows.length > 0 && rows;
    });
    const ts = posted!.ts;
    const update = await eventually(async () => slack.callsTo('chat.update').find((call) => call.args.ts === ts));
    expect(update.args.blocks).toEqual([{ type: 'header', text: { type: 'plain_text', text: 'Request expired' } }]);
    expect(attachment(update).color).toBe('#9E9EA6');
    expect((attachment(update).blocks[0]!.fields as { text: string }[])[0]).toEqual({
      type: 'mrkdwn',
      text: '*Decision*\nExpired undecided',
    });
  });
});
