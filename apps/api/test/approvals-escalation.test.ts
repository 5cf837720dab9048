import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '@agov/db';
import {
  dueEffect,
  escalateOnSchedule,
  expireDueApprovals,
  postEscalationCard,
  sendEmailConfirmation,
  sendEscalationEmail,
  type Deps,
  type DueEffect,
} from '@agov/domain';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/smtp-receiver.js';
import { startFakeSlack, type FakeSlack } from '../../../test/slack-api.js';
import { expectErrorBody, invalidBody, nullableFailure } from './assertions.js';
import { client } from './client.js';
import { request, type Tenant, TestClock, uniqueEmail, useTestApp } from './harness.js';
import { versions } from './policy-rules.js';
import { confirmAddresses } from './reviewers.js';
import { type Approval, approvalRequired, asListed, decide, requestApproval, traceOf, verification } from './scenarios.js';

/*
 * Escalation is driven by hand: each test runs its tenant's due effects through their
 * handlers at the instants it chooses on a stopped clock (the relay's claim reads the
 * database's time, which the test clock does not move). Expiry sweeps act on every tenant,
 * so the file has a database of its own.
 */
const PUBLIC_URL = 'https://governance.example.test';
const clock = new TestClock();
let smtp: SmtpReceiver;
let slack: FakeSlack;
beforeAll(async () => {
  [smtp, slack] = await Promise.all([startSmtpReceiver(), startFakeSlack()]);
});
afterAll(() => Promise.all([smtp.close(), slack.close()]));
const t = useTestApp(() => ({
  ownDatabase: true,
  clock,
  env: { SMTP_URL: smtp.url, SMTP_FROM: 'governance@example.test', SLACK_API_URL: slack.apiUrl, PUBLIC_URL },
}));
const api = client(t);

const TEN_MINUTES = 600;

type Kind = 'email_confirmation' | 'approval_escalation' | 'escalation_email' | 'escalation_chat';
const HANDLERS: { [K in Kind]: (deps: Deps, effect: DueEffect<K>) => Promise<void> } = {
  email_confirmation: sendEmailConfirmation,
  approval_escalation: escalateOnSchedule,
  escalation_email: sendEscalationEmail,
  escalation_chat: postEscalationCard,
};

const rowsOf = (tenant: Tenant, kind: Kind) =>
  t.runtime.database.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, kind)))
    .orderBy(asc(outbox.createdAt));

/** An outbox row of `kind` as its handler receives it. */
const due = <K extends Kind>(row: { id: string; tenantId: string; payload: unknown }, kind: K) =>
  dueEffect({ id: row.id, kind, tenantId: row.tenantId, payload: row.payload });

/** Runs the tenant's effects of `kind` once each, as a worker that claimed them would. */
async function run(tenant: Tenant, kind: Kind) {
  const handle = HANDLERS[kind] as (deps: Deps, effect: DueEffect<Kind>) => Promise<void>;
  for (const row of await rowsOf(tenant, kind)) await handle(t.runtime.deps, due(row, kind));
}

/** The tenant's `approval.escalated` webhooks, as recorded. */
const escalatedWebhooks = async (tenant: Tenant) =>
  (
    await t.runtime.database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, 'webhook')))
  )
    .map((row) => row.payload as { event: string; data: unknown })
    .filter((payload) => payload.event === 'approval.escalated');

const approvalOf = async (tenant: Tenant, id: string) => (await api.get(tenant.admin, `/api/v1/approvals/${id}`)).json().data;

/** A tenant whose rule escalates after `after` seconds; e-mail on, escalation addresses listed, the first `confirmed` of them confirmed. */
async function escalatingTenant(rule: Record<string, unknown>, escalation: { emails?: string[]; confirmed?: number } = {}) {
  const { tenant, agent } = await approvalRequired(t.app, rule);
  const webhook = await api.post(tenant.admin, '/api/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['approval.escalated'] });
  expect(webhook.statusCode, webhook.body).toBe(201);
  const emails = escalation.emails ?? [];
  const saved = await api.put(tenant.admin, '/api/v1/settings/notifications', {
    email_enabled: true,
    reviewer_emails: [uniqueEmail('reviewer')],
    escalation_emails: emails,
  });
  expect(saved.statusCode, saved.body).toBe(200);
  await run(tenant, 'email_confirmation');
  await confirmAddresses(t.app, smtp, emails.slice(0, escalation.confirmed ?? emails.length));
  return { tenant, agent };
}

describe('approval escalation', () => {
  beforeAll(() => {
    clock.stop();
  });
  afterAll(() => clock.resume());

  it('escalates once at escalate_after_seconds: webhook, trace event, confirmed addresses, escalation channel', async () => {
    const [confirmed, unconfirmed] = [uniqueEmail('lead'), uniqueEmail('director')];
    const { tenant, agent } = await escalatingTenant(
      { escalate_after_seconds: TEN_MINUTES, max_session_ttl: 3600 },
      { emails: [confirmed, unconfirmed], confirmed: 1 },
    );
    const channel = `C${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
    const chat = await request(t.app, tenant.admin, {
      method: 'PUT',
      url: '/api/v1/integrations/chat',
      payload: {
        mode: 'bot',
        app_id: 'A0ESCALATE',
        app_secret: 'escalation-signing-secret',
        bot_token: 'xoxb-escalation-token',
        team_id: 'T0TEAM',
        channel_id: 'C0REVIEWERS',
        escalation_channel: channel,
        enabled: true,
      },
    });
    expect(chat.statusCode, chat.body).toBe(200);
    expect(chat.json().data).toMatchObject({ channel_id: 'C0REVIEWERS', escalation_channel: channel });

    const pending = await requestApproval(t.app, tenant, agent.id);
    const escalateAt = new Date(Date.parse(pending.requested_at) + TEN_MINUTES * 1000).toISOString();
    expect(pending).toMatchObject({ escalate_at: escalateAt, escalated_at: null });
    const [scheduled] = await rowsOf(tenant, 'approval_escalation');
    expect(scheduled!.availableAt.toISOString()).toBe(escalateAt);

    // A second early: left pending and looked at again at escalate_at.
    clock.step(TEN_MINUTES * 1000 - 1000);
    await run(tenant, 'approval_escalation');
    expect(await approvalOf(tenant, pending.id)).toMatchObject({ status: 'pending', escalated_at: null });
    expect((await rowsOf(tenant, 'approval_escalation')).map((row) => row.availableAt.toISOString())).toEqual([escalateAt]);
    expect(await escalatedWebhooks(tenant)).toEqual([]);

    // On time, by three runners at once, then again: escalated exactly once.
    clock.step(1000);
    const [row] = await rowsOf(tenant, 'approval_escalation');
    const escalation = due(row!, 'approval_escalation');
    await Promise.all([1, 2, 3].map(() => escalateOnSchedule(t.runtime.deps, escalation)));
    await escalateOnSchedule(t.runtime.deps, escalation);
    expect(await rowsOf(tenant, 'approval_escalation')).toEqual([]);

    const escalated = await approvalOf(tenant, pending.id);
    expect(escalated).toMatchObject({ status: 'pending', escalate_at: escalateAt, escalated_at: escalateAt });
    const approval = asListed(escalated);
    expect(await escalatedWebhooks(tenant)).toEqual([expect.objectContaining({ event: 'approval.escalated', data: { approval } })]);
    const trace = await traceOf(t.app, tenant, pending.trace_id);
    const events = trace.events.filter((event) => event.event_type === 'approval_escalated');
    expect(events).toEqual([
      expect.objectContaining({
        actor_type: 'system',
        status: 'pending',
        approval_request_id: pending.id,
        description: 'Approval request escalated: undecided after 10 minutes',
      }),
    ]);
    expect(trace.final_outcome).toBe('in_progress');
    expect(await verification(t.app, tenant, pending.trace_id)).toMatchObject({ valid: true, event_count: 6 });
    expect(await rowsOf(tenant, 'escalation_email')).toHaveLength(1);
    expect(await rowsOf(tenant, 'escalation_chat')).toHaveLength(1);

    // The mail: to the confirmed escalation address only, the approval's link, marked escalated.
    await run(tenant, 'escalation_email');
    await run(tenant, 'escalation_email');
    const [mail, ...more] = smtp.to(confirmed).filter((m) => m.subject.startsWith('Escalated'));
    expect(more).toEqual([]);
    expect(mail!.subject).toBe('Escalated: approval still required: invoice-bot wants to write on github');
    expect(mail!.text).toContain('Escalated: this request is still undecided after 10 minutes.');
    expect(mail!.text).toContain(`Review the request: ${PUBLIC_URL}/approvals/${pending.id}`);
    expect(smtp.to(unconfirmed).filter((m) => m.subject.startsWith('Escalated'))).toEqual([]);

    // The card: to the escalation channel, with its buttons, marked escalated.
    await run(tenant, 'escalation_chat');
    const posts = slack.callsTo('chat.postMessage').filter((call) => call.args.channel === channel);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.args.text).toMatch(/^Escalated – Approval required: invoice-bot/);
    expect(posts[0]!.args.blocks).toContainEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: ':rotating_light: *Escalated:* this request is still undecided after 10 minutes.' },
    });
    expect(JSON.stringify(posts[0]!.args.attachments)).toContain(`${PUBLIC_URL}/approvals/${pending.id}`);
    expect(JSON.stringify(posts[0]!.args.attachments)).toContain('approval.approve');
  });

  it('does not escalate a request decided before escalate_at', async () => {
    const { tenant, agent } = await escalatingTenant({ escalate_after_seconds: 60 }, { emails: [uniqueEmail('lead')] });
    const pending = await requestApproval(t.app, tenant, agent.id);
    const denied = await decide(t.app, tenant.admin, pending.id, 'deny', { approver_name: 'Rita' });
    expect(denied.statusCode, denied.body).toBe(200);
    clock.step(61_000);
    await run(tenant, 'approval_escalation');
    expect(await rowsOf(tenant, 'approval_escalation')).toEqual([]);
    expect(await approvalOf(tenant, pending.id)).toMatchObject({ status: 'denied', escalated_at: null });
    expect(await escalatedWebhooks(tenant)).toEqual([]);
    expect(await rowsOf(tenant, 'escalation_email')).toEqual([]);
  });

  it('does not escalate a request that expired first, and reports it expired', async () => {
    const { tenant, agent } = await escalatingTenant({ escalate_after_seconds: 60, max_session_ttl: 120 });
    const pending = await requestApproval(t.app, tenant, agent.id);
    // The escalation's run is late (a dead worker): the request expired before it came.
    clock.step(121_000);
    expect(await expireDueApprovals(t.runtime.deps)).toBeGreaterThanOrEqual(1);
    await run(tenant, 'approval_escalation');
    expect(await approvalOf(tenant, pending.id)).toMatchObject({ status: 'expired', escalated_at: null });
    expect((await api.get(tenant.runtimeKey, `/api/v1/approvals/${pending.id}/status`)).json().status).toBe('expired');
    expect(await escalatedWebhooks(tenant)).toEqual([]);
  });

  it('schedules nothing when the rule sets no escalation, or the request expires by then', async () => {
    for (const rule of [{}, { escalate_after_seconds: 120, max_session_ttl: 120 }]) {
      const { tenant, agent } = await escalatingTenant(rule);
      const pending: Approval = await requestApproval(t.app, tenant, agent.id);
      expect(pending).toMatchObject({ escalate_at: null, escalated_at: null });
      expect(await rowsOf(tenant, 'approval_escalation')).toEqual([]);
    }
  });
});

describe('escalate_after_seconds on rules', () => {
  it('is null unless given; set and cleared by PATCH, on every version', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const [rule] = (await api.get(tenant.admin, `/api/v1/policies?agent_id=${agent.id}`)).json().data;
    expect(rule.escalate_after_seconds).toBeNull();

    const set = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { escalate_after_seconds: 900 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toMatchObject({ escalate_after_seconds: 900, policy_version: 2 });
    const cleared = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { escalate_after_seconds: null });
    expect(cleared.json().data).toMatchObject({ escalate_after_seconds: null, policy_version: 3 });
    const history = await versions(api, tenant, rule.id);
    expect(history.map((v: Record<string, unknown>) => [v.version, v.escalate_after_seconds, v.change_summary])).toEqual([
      [3, null, 'Changed escalate_after_seconds'],
      [2, 900, 'Changed escalate_after_seconds'],
      [1, null, 'Created'],
    ]);
  });

  it.each([
    ['zero', 0, nullableFailure('escalate_after_seconds', 'must be >= 1')],
    ['negative', -5, nullableFailure('escalate_after_seconds', 'must be >= 1')],
    ['fractional', 1.5, nullableFailure('escalate_after_seconds', 'must be integer')],
    ['over 30 days', 2_592_001, nullableFailure('escalate_after_seconds', 'must be <= 2592000')],
    ['text', '60', nullableFailure('escalate_after_seconds', 'must be integer')],
  ])('refuses a %s escalate_after_seconds with 400, on create and PATCH', async (_name, value, problems) => {
    const { tenant, agent } = await approvalRequired(t.app);
    const [rule] = (await api.get(tenant.admin, `/api/v1/policies?agent_id=${agent.id}`)).json().data;
    const patched = await api.patch(tenant.admin, `/api/v1/policies/${rule.id}`, { escalate_after_seconds: value });
    expectErrorBody(patched, 400, invalidBody(problems));
    const created = await api.post(tenant.admin, '/api/v1/policies', {
      agent_id: agent.id,
      policy_name: 'Escalating rule',
      target_integration: 'github',
      operation: 'write',
      resource_scope: 'repo/*',
      data_classification: 'internal',
      policy_effect: 'approval_required',
      rationale: 'Repository writes need a human reviewer.',
      priority: 10,
      conditions: null,
      max_session_ttl: null,
      escalate_after_seconds: value,
      modified_by: 'olivia@example.test',
      modified_at: '2026-11-01T09:00:00.000Z',
    });
    expectErrorBody(created, 400, invalidBody(problems));
  });
});

describe('escalation settings', () => {
  it('lists escalation addresses, confirmed as reviewers are; the chat escalation channel is bot-only', async () => {
    const { tenant } = await approvalRequired(t.app);
    const lead = uniqueEmail('lead');
    const saved = await api.put(tenant.admin, '/api/v1/settings/notifications', {
      email_enabled: false,
      reviewer_emails: [],
      escalation_emails: [lead],
    });
    expect(saved.json()).toEqual({
      data: { email_enabled: false, reviewer_emails: [], escalation_emails: [lead], unconfirmed_emails: [lead] },
    });
    await run(tenant, 'email_confirmation');
    await confirmAddresses(t.app, smtp, [lead]);
    const read = await api.get(tenant.admin, '/api/v1/settings/notifications');
    expect(read.json().data).toMatchObject({ escalation_emails: [lead], unconfirmed_emails: [] });
    // Left out of a PUT: nobody.
    const replaced = await api.put(tenant.admin, '/api/v1/settings/notifications', { email_enabled: false, reviewer_emails: [] });
    expect(replaced.json().data).toMatchObject({ escalation_emails: [] });

    const incoming = await request(t.app, tenant.admin, {
      method: 'PUT',
      url: '/api/v1/integrations/chat',
      payload: { mode: 'incoming_webhook', webhook_url: slack.incomingWebhookUrl, enabled: true, escalation_channel: 'C0ESCALATE' },
    });
    expectErrorBody(incoming, 400, {
      error: 'validation_error',
      message: 'Invalid chat settings: escalation_channel is not a setting of incoming_webhook mode',
      details: { fields: [{ field: 'escalation_channel', message: 'is not a setting of incoming_webhook mode' }] },
    });
  });
});
