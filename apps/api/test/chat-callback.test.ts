import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { chatMessages } from '@agov/db';
import { eventually } from '../../../test/receiver.js';
import { FAST_DISPATCH_ENV } from '../../../test/processes.js';
import { blockActions, type FakeSlack, signedInteraction, slackHeaders, startFakeSlack } from '../../../test/slack-api.js';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { PASSWORD, request, sessionCookie, signupTenant, TestClock, uniqueEmail, useTestApp } from './harness.js';
import { eventTypes, evaluation, traceOf } from './scenarios.js';

/*
 * Presses on cards reach POST /api/v1/integrations/chat/callback signed as Slack signs them;
 * the cards themselves, their updates and the presser's ephemeral answers go to a fake Slack.
 * Jobs run in-process (no Redis).
 */
const CALLBACK = '/api/v1/integrations/chat/callback';

let slack: FakeSlack;
const clock = new TestClock();
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(() => slack.close());
const t = useTestApp(() => ({ ownDatabase: true, jobs: true, clock, env: { ...FAST_DISPATCH_ENV, SLACK_API_URL: slack.apiUrl } }));
const api = client(t);

const slackId = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;

/**
 * A tenant in bot mode with a Slack team of its own, a reviewer known to Slack, an agent
 * created by `creator` (an admin known to Slack, signed in) whose `created_by` says
 * `createdBy`, and a pending request whose card has been posted.
 */
async function cardScenario(policy: Record<string, unknown> = {}, { awaitCard = true, createdBy = 'Platform Team' } = {}) {
  const tenant = await signupTenant(t.app);
  const team = slackId('T');
  const secret = `secret-${randomUUID()}`;
  const saved = await request(t.app, tenant.admin, {
    method: 'PUT',
    url: '/api/v1/integrations/chat',
    payload: {
      mode: 'bot',
      app_id: 'A0TESTAPP',
      app_secret: secret,
      bot_token: 'xoxb-callback-token',
      team_id: team,
      channel_id: 'C0APPROVALS',
      enabled: true,
    },
  });
  expect(saved.statusCode, saved.body).toBe(200);

  const member = async (name: string, role: string) => {
    const email = uniqueEmail(name.split(' ')[0]!.toLowerCase());
    const created = await request(t.app, tenant.admin, {
      method: 'POST',
      url: '/api/v1/users',
      payload: { name, email, password: PASSWORD, role },
    });
    expect(created.statusCode, created.body).toBe(201);
    const user = slackId('U');
    slack.addUser(user, email.toUpperCase());
    return { user, email };
  };
  const reviewer = await member('Rita Reviewer', 'reviewer');
  const creator = await member('Carl Creator', 'admin');
  const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: creator.email, password: PASSWORD } });
  const agent = await createAgent(t.app, { cookie: sessionCookie(login) }, { created_by: createdBy });
  await createPolicy(t.app, tenant.admin, agent.id, { policy_effect: 'approval_required', ...policy });
  const evaluated = await evaluation(t.app, tenant, action(agent.id));
  const approvalId = evaluated.approval_request_id!;
  await eventually(async () => {
    const rows = await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
    return !awaitCard || rows.length > 0;
  });

  const press = (user: string, verdict: 'approve' | 'deny' | 'open' = 'approve', username?: string) =>
    signedInteraction(
      secret,
      blockActions({ teamId: team, userId: user, ...(username ? { username } : {}), action: `approval.${verdict}`, approvalId }),
      Math.floor(clock.now().getTime() / 1000),
    );
  const status = async () => (await api.get(tenant.admin, `/api/v1/approvals/${approvalId}/status`)).json();
  return { tenant, team, secret, agent, reviewer, creator, member, approvalId, traceId: evaluated.trace_id, press, status };
}

const send = (signed: { body: string; headers: Record<string, string> }) =>
  t.app.inject({ method: 'POST', url: CALLBACK, headers: signed.headers, payload: signed.body });

/** The ephemeral answer the presser got, once it has arrived. */
const ephemeralFor = (user: string) =>
  eventually(async () => slack.callsTo('chat.postEphemeral').find((call) => call.args.user === user), 10_000, `ephemeral to ${user}`);

describe('the chat callback decides as the pressing reviewer', () => {
  it('approves, records the reviewer, and updates the card in place', async () => {
    const { reviewer, approvalId, traceId, press, status, tenant } = await cardScenario();
    const response = await send(press(reviewer.user));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).toBe('');

    expect(await status()).toMatchObject({ id: approvalId, status: 'approved', approver_name: 'Rita Reviewer', decision_note: null });
    const trace = await traceOf(t.app, tenant, traceId);
    expect(trace.final_outcome).toBe('completed_with_approval');
    expect(trace.events.find((event) => event.event_type === 'approval_granted')).toMatchObject({
      actor_type: 'human_reviewer',
      actor_name: `Rita Reviewer <${reviewer.email}>`,
    });

    const [posted] = await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
    const ts = posted!.ts;
    const update = await eventually(async () => slack.callsTo('chat.update').find((call) => call.args.ts === ts));
    expect(update.args.channel).toBe('C0APPROVALS');
    expect(update.args.text).toBe('Request approved: invoice-bot – write on github (repo/app)');
    const fields = (update.args.attachments as { blocks: { fields?: { text: string }[] }[] }[])[0]!.blocks[0]!.fields!;
    expect(fields.map((field) => field.text.split('\n')[0])).toEqual(['*Decision*', '*Decided at*', '*Agent*', '*Operation*']);
    expect(fields[0]!.text).toBe('*Decision*\nApproved by Rita Reviewer');
    // Slack asked who pressed, with the tenant's bot token.
    expect(slack.callsTo('users.info').find((call) => call.args.user === reviewer.user)?.token).toBe('xoxb-callback-token');
  });

  it('denies, also through the x-chat-* headers', async () => {
    const { reviewer, press, status } = await cardScenario();
    const signed = press(reviewer.user, 'deny');
    const headers = {
      'content-type': signed.headers['content-type'],
      'x-chat-signature': signed.headers['x-slack-signature'],
      'x-chat-timestamp': signed.headers['x-slack-request-timestamp'],
    };
    expect((await send({ body: signed.body, headers })).statusCode).toBe(200);
    expect(await status()).toMatchObject({ status: 'denied', approver_name: 'Rita Reviewer' });
  });

  it("refuses to let the agent's creator approve, with an ephemeral error, and decides nothing", async () => {
    const { creator, press, status, tenant, traceId } = await cardScenario();
    const before = (await traceOf(t.app, tenant, traceId)).events.length;
    expect((await send(press(creator.user))).statusCode).toBe(200);
    const answer = await ephemeralFor(creator.user);
    expect(answer.args).toMatchObject({
      channel: 'C0APPROVALS',
      user: creator.user,
      text: "You cannot approve your own agent's requests.",
    });
    expect(answer.args.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: "You cannot approve your own agent's requests." } },
    ]);
    expect(await status()).toMatchObject({ status: 'pending', approver_name: null });
    expect((await traceOf(t.app, tenant, traceId)).events).toHaveLength(before);

    // Denying one's own agent's request is always allowed.
    expect((await send(press(creator.user, 'deny'))).statusCode).toBe(200);
    expect(await status()).toMatchObject({ status: 'denied', approver_name: 'Carl Creator' });
  });

  it('compares the presser with the creator the service recorded, not with the created_by the client wrote', async () => {
    // created_by names the reviewer, who did not create the agent: the reviewer may approve.
    const named = await cardScenario({}, { createdBy: 'Rita Reviewer' });
    expect((await send(named.press(named.reviewer.user))).statusCode).toBe(200);
    expect(await named.status()).toMatchObject({ status: 'approved', approver_name: 'Rita Reviewer' });

    // The creator rewrote created_by to someone else: still the creator, still refused.
    const { creator, agent, press, status, tenant } = await cardScenario();
    const patched = await request(t.app, tenant.admin, {
      method: 'PATCH',
      url: `/api/v1/agents/${agent.id}`,
      payload: { created_by: 'Someone Else' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await send(press(creator.user))).statusCode).toBe(200);
    expect((await ephemeralFor(creator.user)).args.text).toBe("You cannot approve your own agent's requests.");
    expect(await status()).toMatchObject({ status: 'pending', approver_name: null });
  });

  it('makes one decision of a double press and of a replayed press, and tells the second presser', async () => {
    const { reviewer, member, press, status, tenant, traceId } = await cardScenario();
    const other = await member('Otto Other', 'admin');
    const [first, second] = await Promise.all([send(press(reviewer.user)), send(press(other.user))]);
    expect([first!.statusCode, second!.statusCode]).toEqual([200, 200]);
    const decided = await status();
    expect(decided.status).toBe('approved');
    const loser = decided.approver_name === 'Rita Reviewer' ? other.user : reviewer.user;
    expect((await ephemeralFor(loser)).args.text).toBe(
      `This approval request was already approved by ${decided.approver_name}; nothing changed.`,
    );

    // The very same signed request again, inside the 5-minute window.
    const replay = press(reviewer.user);
    expect((await send(replay)).statusCode).toBe(200);
    expect((await send(replay)).statusCode).toBe(200);
    expect(await status()).toEqual(decided);
    expect(eventTypes(await traceOf(t.app, tenant, traceId)).filter((type) => type === 'approval_granted')).toHaveLength(1);
  });

  it("escapes the approver's name in the explanation, in its text as in its blocks", async () => {
    const { reviewer, approvalId, press, tenant } = await cardScenario();
    const denied = await api.post(tenant.admin, `/api/v1/approvals/${approvalId}/deny`, {
      approver_name: '<!channel> & <https://x.test|co>',
    });
    expect(denied.statusCode, denied.body).toBe(200);
    expect((await send(press(reviewer.user))).statusCode).toBe(200);
    const escaped = 'This approval request was already denied by &lt;!channel&gt; &amp; &lt;https://x.test|co&gt;; nothing changed.';
    const answer = await ephemeralFor(reviewer.user);
    expect(answer.args.text).toBe(escaped);
    expect(answer.args.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: escaped } }]);
  });

  it('tells a presser their approval counted while the request waits for a second person, then decides on the second', async () => {
    const { reviewer, member, press, status, approvalId } = await cardScenario({ approvals_required: 2 });
    const other = await member('Otto Other', 'reviewer');
    expect((await send(press(reviewer.user))).statusCode).toBe(200);
    expect((await ephemeralFor(reviewer.user)).args.text).toBe('Your approval is recorded (1 of 2); the request waits for 1 more person.');
    expect(await status()).toMatchObject({ status: 'pending', approver_name: null });

    expect((await send(press(other.user))).statusCode).toBe(200);
    expect(await status()).toMatchObject({ status: 'approved', approver_name: 'Otto Other' });
    const [posted] = await t.runtime.database.db.select().from(chatMessages).where(eq(chatMessages.approvalId, approvalId));
    const update = await eventually(async () => slack.callsTo('chat.update').find((call) => call.args.ts === posted!.ts));
    expect(update.args.text).toBe('Request approved: invoice-bot – write on github (repo/app)');
  });

  it('explains a press on an expired request and changes nothing', async () => {
    // Its card may not be posted in time; the press is what matters here.
    const { reviewer, press, status } = await cardScenario({ max_session_ttl: 1 }, { awaitCard: false });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await send(press(reviewer.user))).statusCode).toBe(200);
    expect((await ephemeralFor(reviewer.user)).args.text).toBe('This approval request has expired; nothing was decided.');
    expect(await status()).toMatchObject({ status: 'expired', approver_name: null, decision_note: null });
  });

  it('refuses to approve for a suspended agent, explaining why', async () => {
    const { reviewer, agent, press, status, tenant } = await cardScenario();
    expect((await api.post(tenant.admin, `/api/v1/agents/${agent.id}/suspend`)).statusCode).toBe(200);
    expect((await send(press(reviewer.user))).statusCode).toBe(200);
    expect((await ephemeralFor(reviewer.user)).args.text).toBe(
      'Not decided: agent is suspended; only requests of an active agent can be approved.',
    );
    expect((await status()).status).toBe('pending');
  });

  it('lets only reviewers and admins of the tenant decide', async () => {
    const { member, press, status } = await cardScenario();
    const viewer = await member('Vera Viewer', 'viewer');
    const stranger = slackId('U');
    slack.addUser(stranger, uniqueEmail('stranger'));
    const hidden = slackId('U');
    slack.addUser(hidden, null);
    for (const user of [viewer.user, stranger]) {
      expect((await send(press(user))).statusCode).toBe(200);
      expect((await ephemeralFor(user)).args.text).toBe(
        'Only reviewers and admins of this organization can decide requests; nothing was decided.',
      );
    }
    expect((await send(press(hidden))).statusCode).toBe(200);
    expect((await ephemeralFor(hidden)).args.text).toBe(
      'Your Slack e-mail address is not visible to the app, so you cannot decide requests here.',
    );
    expect((await status()).status).toBe('pending');
  });

  it('acknowledges a Dashboard press and does nothing', async () => {
    const { reviewer, press, status } = await cardScenario();
    const lookups = slack.callsTo('users.info').length;
    expect((await send(press(reviewer.user, 'open'))).statusCode).toBe(200);
    expect((await status()).status).toBe('pending');
    expect(slack.callsTo('users.info')).toHaveLength(lookups);
  });
});

/*
 * Separation of duties (spec, chat callback step 6; CONTRACT, trust decisions) on the identity
 * the service recorded for the agent's creator: the signed-in user, which a press is matched
 * to by the e-mail Slack holds for the presser. Nothing else a press carries says who pressed:
 * a Slack user id and username are the workspace's, and names are not unique.
 */
describe('separation of duties matches the presser to the creator by e-mail alone', () => {
  const SELF_APPROVAL = "You cannot approve your own agent's requests.";

  it('refuses the creator pressing from another Slack account with their e-mail, under another username', async () => {
    const { creator, reviewer, press, status, tenant, traceId } = await cardScenario();
    const before = await traceOf(t.app, tenant, traceId);
    // A second Slack account of the creator's (another workspace user id), its e-mail in
    // another case, pressing under the reviewer's username.
    const second = slackId('U');
    slack.addUser(second, creator.email);
    expect((await send(press(second, 'approve', reviewer.user.toLowerCase()))).statusCode).toBe(200);

    expect((await ephemeralFor(second)).args.text).toBe(SELF_APPROVAL);
    expect(await status()).toMatchObject({ status: 'pending', decided_at: null, approver_name: null });
    expect(await traceOf(t.app, tenant, traceId)).toEqual(before);
  });

  it("lets a reviewer named like the creator, pressing under the creator's username, approve as themself", async () => {
    const { creator, member, press, status, tenant, traceId } = await cardScenario();
    const namesake = await member('Carl Creator', 'reviewer');
    expect(namesake.email).not.toBe(creator.email);
    expect((await send(press(namesake.user, 'approve', creator.user.toLowerCase()))).statusCode).toBe(200);

    expect(await status()).toMatchObject({ status: 'approved', approver_name: 'Carl Creator' });
    const granted = (await traceOf(t.app, tenant, traceId)).events.find((event) => event.event_type === 'approval_granted');
    expect(granted).toMatchObject({ actor_type: 'human_reviewer', actor_name: `Carl Creator <${namesake.email}>` });
  });
});

describe('the chat callback acts only on requests signed for the workspace they name', () => {
  const forbidden = async (signed: { body: string; headers: Record<string, string> }) => {
    const response = await send(signed);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: 'forbidden',
      message: 'Chat callback signature check failed',
      status: 403,
      request_id: expect.any(String),
    });
  };

  it('answers 403 to bad, stale, future, missing and foreign signatures, and decides nothing', async () => {
    const { reviewer, secret, team, approvalId, status } = await cardScenario();
    const payload = blockActions({ teamId: team, userId: reviewer.user, action: 'approval.approve', approvalId });
    // The service's clock stands still, so "301 s away" stays just outside the window however
    // long the requests take (on a running clock, `now + 301` came inside it a second later).
    const now = Math.floor(clock.stop().getTime() / 1000);
    onTestFinished(() => clock.resume());
    const valid = signedInteraction(secret, payload, now);
    const without = (name: string) => ({
      body: valid.body,
      headers: Object.fromEntries(Object.entries(valid.headers).filter(([key]) => key !== name)),
    });

    await forbidden({ body: valid.body, headers: { ...valid.headers, 'x-slack-signature': `v0=${'0'.repeat(64)}` } });
    await forbidden({ body: `${valid.body}&x=1`, headers: valid.headers });
    await forbidden({
      body: valid.body,
      headers: { ...valid.headers, 'x-slack-signature': valid.headers['x-slack-signature'].slice(0, 40) },
    });
    await forbidden(signedInteraction(secret, payload, now - 301));
    await forbidden(signedInteraction(secret, payload, now + 301));
    await forbidden(without('x-slack-signature'));
    await forbidden(without('x-slack-request-timestamp'));
    await forbidden(signedInteraction('some-other-app-secret', payload, now));
    // Signed by the tenant's app, but for another team.
    await forbidden(signedInteraction(secret, { ...payload, team: { id: 'T0SOMEONEELSE' } }, now));
    expect((await status()).status).toBe('pending');

    // Just inside the window, either way, it is accepted.
    expect((await send(signedInteraction(secret, payload, now - 280))).statusCode).toBe(200);
    expect((await status()).status).toBe('approved');
  });

  it('answers 403 to a body that names no workspace, even signed with the right secret, as to a workspace not connected here', async () => {
    const { reviewer, secret, team, approvalId, status } = await cardScenario();
    const payload = blockActions({ teamId: team, userId: reviewer.user, action: 'approval.approve', approvalId });
    const now = Math.floor(Date.now() / 1000);
    const signedForm = (body: string) => ({ body, headers: slackHeaders(secret, body, now) });
    const { team: _team, ...teamless } = payload;

    // Nothing to look the signer up by: no secret is tried, and nothing says whether one would match.
    await forbidden(signedForm('payload=not-json'));
    await forbidden(signedForm('payload=null'));
    await forbidden(signedForm(new URLSearchParams({ command: '/approve', text: approvalId }).toString()));
    await forbidden(signedInteraction(secret, teamless, now));
    await forbidden(signedInteraction(secret, { ...payload, team: { id: 42 } }, now));
    await forbidden(signedInteraction(secret, { ...payload, api_app_id: 7 }, now));
    // A workspace, or an app of it, that no enabled integration here has.
    await forbidden(signedInteraction(secret, { ...payload, api_app_id: 'A0OTHERAPP' }, now));
    await forbidden(signedInteraction(secret, { type: 'view_submission', team: { id: slackId('T') } }, now));
    expect((await status()).status).toBe('pending');
  });

  it("checks Slack's published example: verified at its own time, 403 today", async () => {
    // Slack's worked example in "Verifying requests from Slack" (docs.slack.dev).
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
      '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com' +
      '%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    };
    expect(slackHeaders('8f742231b10e8888abcd99yyyzzz85a5', body, 1531420618)).toEqual(headers);
    const tenant = await signupTenant(t.app);
    const saved = await request(t.app, tenant.admin, {
      method: 'PUT',
      url: '/api/v1/integrations/chat',
      payload: {
        mode: 'bot',
        app_id: 'A0EXAMPLE',
        app_secret: '8f742231b10e8888abcd99yyyzzz85a5',
        bot_token: 'xoxb-example',
        team_id: 'T1DC2JH3J',
        channel_id: 'G8PSS9T3V',
        enabled: true,
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);

    await forbidden({ body, headers });

    const offset = 1531420618_000 - Date.now();
    clock.advance(offset);
    try {
      // Signature and time verify; a slash command is not a card press.
      const response = await send({ body, headers });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'validation_error', message: 'Invalid chat callback: the body has no payload field' });
    } finally {
      clock.advance(-offset);
    }
  });

  it('answers 400 to a signed body that is not a card press', async () => {
    const { secret, team } = await cardScenario();
    const now = Math.floor(Date.now() / 1000);
    for (const [payload, message] of [
      [{ type: 'view_submission', team: { id: team } }, 'payload.type must be block_actions'],
      [{ type: 'block_actions', team: { id: team }, user: { id: 'U1' }, actions: [] }, 'payload.actions must hold the pressed action'],
      [
        { type: 'block_actions', team: { id: team }, user: { id: 'U1' }, actions: [{ action_id: 'approval.approve', value: 'nope' }] },
        'actions[0].value must be an approval request id',
      ],
    ] as const) {
      const response = await send(signedInteraction(secret, payload, now));
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(`Invalid chat callback: ${message}`);
    }
  });
});
