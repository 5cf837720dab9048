import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { outbox } from '@agov/db';
import { FAST_DISPATCH_ENV, FAST_RETRY_DELAYS_MS } from '../../../test/processes.js';
import { eventually } from '../../../test/receiver.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/smtp-receiver.js';
import { expectErrorBody, FORBIDDEN, expectInvalidBody, expectValidationError } from './assertions.js';
import { client } from './client.js';
import { action } from './fixtures.js';
import {
  type Credential,
  keyWithScopes,
  DISPATCH_DATABASES,
  request,
  sessionWithRole,
  signupTenant,
  type Tenant,
  type TestApp,
  uniqueEmail,
  useTestApp,
} from './harness.js';
import { approvalMailsTo, confirmAddresses, waitForApprovalMails } from './reviewers.js';
import { APPROVAL_RATIONALE, approvalRequired, evaluation } from './scenarios.js';

const SETTINGS = '/api/v1/settings/notifications';

/** The tenant's approval e-mail effects still in the outbox. */
const emailRowsOf = (t: TestApp, tenantId: string) =>
  t.runtime.database.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.tenantId, tenantId), eq(outbox.kind, 'approval_email')));

/** Once the tenant's e-mail effects are done: sent, given up or dropped. */
const emailsSettled = (t: TestApp, tenantId: string) =>
  eventually(async () => (await emailRowsOf(t, tenantId)).length === 0, 10_000, 'approval e-mails settled');

/** Saves notification settings as `credential`; answers the raw response. */
const putSettings = (t: TestApp, credential: Credential, body: unknown) =>
  request(t.app, credential, { method: 'PUT', url: SETTINGS, payload: body as object });

describe('notification settings', () => {
  const t = useTestApp();
  const api = client(t);

  const settingsOf = async (tenant: Tenant) => {
    const response = await api.get(tenant.admin, SETTINGS);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const put = (tenant: Tenant, body: unknown) => putSettings(t, tenant.admin, body);

  it('has e-mail off and no reviewers for a tenant that never saved them', async () => {
    const tenant = await signupTenant(t.app);
    expect(await settingsOf(tenant)).toEqual({
      data: { email_enabled: false, reviewer_emails: [], escalation_emails: [], unconfirmed_emails: [] },
    });
  });

  it('replaces both fields, keeping an address listed twice in any letter case once, as first written', async () => {
    const tenant = await signupTenant(t.app);
    const saved = await put(tenant, {
      email_enabled: true,
      reviewer_emails: ['Rita.Reviewer@Example.test', 'sam@example.test', 'rita.reviewer@example.test', 'SAM@EXAMPLE.TEST'],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const listed = ['Rita.Reviewer@Example.test', 'sam@example.test'];
    const expected = { data: { email_enabled: true, reviewer_emails: listed, escalation_emails: [], unconfirmed_emails: listed } };
    expect(saved.json()).toEqual(expected);
    expect(await settingsOf(tenant)).toEqual(expected);

    const replaced = await put(tenant, { email_enabled: false, reviewer_emails: ['ops@example.test'] });
    const ops = ['ops@example.test'];
    expect(replaced.json()).toEqual({
      data: { email_enabled: false, reviewer_emails: ops, escalation_emails: [], unconfirmed_emails: ops },
    });
    const emptied = await put(tenant, { email_enabled: false, reviewer_emails: [] });
    const none = { data: { email_enabled: false, reviewer_emails: [], escalation_emails: [], unconfirmed_emails: [] } };
    expect(emptied.json()).toEqual(none);
    expect(await settingsOf(tenant)).toEqual(none);
  });

  it('refuses invalid bodies with 400 and changes nothing', async () => {
    const tenant = await signupTenant(t.app);
    const before = { email_enabled: true, reviewer_emails: ['rita@example.test'] };
    expect((await put(tenant, before)).statusCode).toBe(200);

    expectInvalidBody(await put(tenant, { email_enabled: true }), [['reviewer_emails', 'is required']]);
    expectInvalidBody(await put(tenant, { reviewer_emails: [] }), [['email_enabled', 'is required']]);
    expectInvalidBody(await put(tenant, { ...before, is_active: true }), [['is_active', 'is not allowed']]);
    expectInvalidBody(await put(tenant, { ...before, email_enabled: 'true' }), [['email_enabled', 'must be boolean']]);
    expectInvalidBody(await put(tenant, { ...before, reviewer_emails: 'rita@example.test' }), [['reviewer_emails', 'must be array']]);
    expectInvalidBody(await put(tenant, { ...before, reviewer_emails: ['rita@example.test', 'not an address'] }), [
      ['reviewer_emails.1', 'must match format "email"'],
    ]);
    // A line break cannot smuggle a header or another recipient into the message.
    expectInvalidBody(await put(tenant, { ...before, reviewer_emails: ['rita@example.test\r\nBcc: intruder@example.test'] }), [
      ['reviewer_emails.0', 'must match format "email"'],
    ]);
    expectInvalidBody(await put(tenant, { ...before, reviewer_emails: [`${'r'.repeat(250)}@example.test`] }), [
      ['reviewer_emails.0', 'must NOT have more than 254 characters'],
    ]);
    const tooMany = Array.from({ length: 51 }, (_, i) => `reviewer${i}@example.test`);
    expectInvalidBody(await put(tenant, { ...before, reviewer_emails: tooMany }), [
      ['reviewer_emails', 'must NOT have more than 50 items'],
    ]);
    expectValidationError(
      await put(tenant, { email_enabled: true, reviewer_emails: [] }),
      'Invalid body: reviewer_emails must list at least one address when email_enabled is true',
      [{ field: 'reviewer_emails', message: 'must list at least one address when email_enabled is true' }],
    );

    expect(await settingsOf(tenant)).toEqual({ data: { ...before, escalation_emails: [], unconfirmed_emails: before.reviewer_emails } });
    // Fifty is allowed.
    const fifty = tooMany.slice(0, 50);
    expect((await put(tenant, { email_enabled: true, reviewer_emails: fifty })).json()).toEqual({
      data: { email_enabled: true, reviewer_emails: fifty, escalation_emails: [], unconfirmed_emails: fifty },
    });
  });

  it('is for admins only: an admin key or session; other keys and roles get 403', async () => {
    const tenant = await signupTenant(t.app);
    const body = { email_enabled: false, reviewer_emails: ['rita@example.test'] };
    const saved = { data: { ...body, escalation_emails: [], unconfirmed_emails: body.reviewer_emails } };
    const adminKey = await keyWithScopes(t.app, tenant, ['admin']);
    expect((await putSettings(t, { apiKey: adminKey.apiKey }, body)).json()).toEqual(saved);
    expect((await api.get({ apiKey: adminKey.apiKey }, SETTINGS)).json()).toEqual(saved);

    const approvalsKey = await keyWithScopes(t.app, tenant, ['approvals:read', 'approvals:write']);
    const reviewer = await sessionWithRole(t.app, tenant, 'reviewer');
    for (const credential of [
      tenant.runtimeKey,
      { apiKey: approvalsKey.apiKey },
      reviewer,
      await sessionWithRole(t.app, tenant, 'viewer'),
    ]) {
      expectErrorBody(await api.get(credential, SETTINGS), 403, FORBIDDEN);
    }
    const intrusion = { email_enabled: true, reviewer_emails: ['intruder@example.test'] };
    expectErrorBody(await putSettings(t, reviewer, intrusion), 403, FORBIDDEN);
    expectErrorBody(await putSettings(t, { apiKey: approvalsKey.apiKey }, intrusion), 403, FORBIDDEN);
    expectErrorBody(await api.get(null, SETTINGS), 401, { error: 'unauthorized', message: expect.any(String) });
    expect(await settingsOf(tenant)).toEqual(saved);
  });

  it("keeps each tenant's settings its own", async () => {
    const ours = await signupTenant(t.app);
    const theirs = await signupTenant(t.app);
    const mine = { email_enabled: true, reviewer_emails: ['ours@example.test'] };
    const ourSettings = { data: { ...mine, escalation_emails: [], unconfirmed_emails: mine.reviewer_emails } };
    expect((await put(ours, mine)).json()).toEqual(ourSettings);
    expect(await settingsOf(theirs)).toEqual({
      data: { email_enabled: false, reviewer_emails: [], escalation_emails: [], unconfirmed_emails: [] },
    });
    const their = { email_enabled: true, reviewer_emails: ['theirs@example.test'] };
    expect((await put(theirs, their)).json()).toEqual({
      data: { ...their, escalation_emails: [], unconfirmed_emails: their.reviewer_emails },
    });
    expect(await settingsOf(ours)).toEqual(ourSettings);
  });
});

/*
 * Approval e-mails leave through the outbox, dispatched in-process (embedded mode: no Redis),
 * to a real local SMTP server that scripts its answers per recipient, so each test speaks only
 * for its own tenant's reviewers. The sender logs in with a password that must never be logged.
 */
const PUBLIC_URL = 'https://governance.example.com';
const SMTP_PASSWORD = 'smtp-password-never-logged';

describe.each(Object.entries(DISPATCH_DATABASES))('approval e-mails on %s', (_name, database) => {
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
  });
  afterAll(() => smtp.close());
  const t = useTestApp(async () => ({
    jobs: true,
    env: {
      ...(await database()),
      ...FAST_DISPATCH_ENV,
      SMTP_URL: smtp.url.replace('smtp://', `smtp://mailer:${SMTP_PASSWORD}@`),
      SMTP_FROM: 'Agent Governance <governance@example.test>',
      PUBLIC_URL,
      OUTBOX_LEASE_MS: '5000',
    },
  }));
  // Before the app closes: a message it still waits on is answered.
  afterAll(() => smtp.release('accept'));
  const api = client(t);

  /** A tenant whose agent needs approval for the fixture action, with these notification settings and its reviewers confirmed. */
  async function tenantWithReviewers(emailEnabled: boolean, reviewers: string[]) {
    const { tenant, agent } = await approvalRequired(t.app);
    const saved = await putSettings(t, tenant.admin, { email_enabled: emailEnabled, reviewer_emails: reviewers });
    expect(saved.statusCode, saved.body).toBe(200);
    await confirmAddresses(t.app, smtp, reviewers);
    const requestApproval = async () => (await evaluation(t.app, tenant, action(agent.id))).approval_request_id!;
    return { tenant, agent, requestApproval };
  }

  /** The message the fixture action's approval request must produce. */
  async function expectedMessage(tenant: Tenant, approvalId: string) {
    const approval = (await api.get(tenant.admin, `/api/v1/approvals/${approvalId}`)).json().data;
    const link = `${PUBLIC_URL}/approvals/${approvalId}`;
    const deadline = `It expires at ${approval.expires_at} unless someone decides it first.`;
    return {
      subject: 'Approval required: invoice-bot wants to write on github',
      text: [
        'invoice-bot asks for approval before it acts.',
        '',
        'Agent:          invoice-bot',
        'Operation:      write',
        'Integration:    github',
        'Resource:       repo/app',
        'Risk:           medium',
        'Classification: internal',
        `Reason:         ${APPROVAL_RATIONALE}`,
        '',
        `Review the request: ${link}`,
        deadline,
        '',
      ].join('\n'),
      html: [
        '<!doctype html>',
        '<html>',
        '<body style="font-family: sans-serif; line-height: 1.4">',
        '<p>invoice-bot asks for approval before it acts.</p>',
        '<table cellpadding="4" cellspacing="0">',
        '<tr><th align="left">Agent</th><td>invoice-bot</td></tr>',
        '<tr><th align="left">Operation</th><td>write</td></tr>',
        '<tr><th align="left">Integration</th><td>github</td></tr>',
        '<tr><th align="left">Resource</th><td>repo/app</td></tr>',
        '<tr><th align="left">Risk</th><td>medium</td></tr>',
        '<tr><th align="left">Classification</th><td>internal</td></tr>',
        `<tr><th align="left">Reason</th><td>${APPROVAL_RATIONALE}</td></tr>`,
        '</table>',
        `<p><a href="${link}">Review the request</a></p>`,
        `<p>${deadline}</p>`,
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    };
  }

  it('mails each request to each confirmed reviewer in a message of its own: subject, both bodies and the link', async () => {
    const reviewers = [uniqueEmail('rita'), uniqueEmail('sam')];
    const { tenant, requestApproval } = await tenantWithReviewers(true, reviewers);
    const approvalId = await requestApproval();

    const expected = await expectedMessage(tenant, approvalId);
    for (const reviewer of reviewers) {
      const [mail] = await waitForApprovalMails(smtp, reviewer);
      expect(mail).toMatchObject({
        envelope: { from: 'governance@example.test', to: [reviewer] },
        user: 'mailer',
        answer: 'accepted',
        ...expected,
      });
      expect(mail!.headers).toMatchObject({
        from: 'Agent Governance <governance@example.test>',
        to: reviewer,
        subject: 'Approval required: invoice-bot wants to write on github',
      });
      expect(mail!.headers).not.toHaveProperty('cc');
      expect(mail!.headers['content-type']).toMatch(/^multipart\/alternative;/);
    }

    await emailsSettled(t, tenant.tenantId);
    for (const reviewer of reviewers) expect(approvalMailsTo(smtp, reviewer)).toHaveLength(1);
  });

  it('sends nothing while e-mail is switched off, and drops the effect', async () => {
    const reviewer = uniqueEmail('off');
    const { tenant, requestApproval } = await tenantWithReviewers(false, [reviewer]);
    await requestApproval();
    await requestApproval();

    await emailsSettled(t, tenant.tenantId);
    expect(approvalMailsTo(smtp, reviewer)).toEqual([]);
  });

  it('retries a server that refuses with 451 on the webhook schedule, for the refused reviewer only', async () => {
    const [steady, flaky] = [uniqueEmail('steady'), uniqueEmail('retry')];
    const { tenant, requestApproval } = await tenantWithReviewers(true, [steady, flaky]);
    smtp.answer(flaky, [451, 'hold']);
    const approvalId = await requestApproval();

    // The second attempt is being made: the first failure, and who got the message, are on the effect.
    await waitForApprovalMails(smtp, flaky, 2);
    const [row] = await emailRowsOf(t, tenant.tenantId);
    expect(row).toMatchObject({
      payload: { approval_id: approvalId, failed_attempts: 1, recipients_done: [steady] },
      lastError: 'the mail server answered 451 (EMESSAGE)',
    });

    smtp.release('accept');
    await emailsSettled(t, tenant.tenantId);
    const expected = await expectedMessage(tenant, approvalId);
    const [refused, accepted] = approvalMailsTo(smtp, flaky);
    expect(refused).toMatchObject({ answer: 451, ...expected });
    expect(accepted).toMatchObject({ answer: 'accepted', ...expected });
    expect(approvalMailsTo(smtp, flaky)).toHaveLength(2);
    expect(approvalMailsTo(smtp, steady)).toEqual([expect.objectContaining({ answer: 'accepted', ...expected })]);
  });

  it('gives up after the last attempt with an error log that holds no credentials', async () => {
    const reviewer = uniqueEmail('refused');
    const { tenant, requestApproval } = await tenantWithReviewers(true, [reviewer]);
    smtp.answer(reviewer, [451]);
    const approvalId = await requestApproval();

    await waitForApprovalMails(smtp, reviewer, FAST_RETRY_DELAYS_MS.length + 1);
    await emailsSettled(t, tenant.tenantId);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(approvalMailsTo(smtp, reviewer).map((mail) => mail.answer)).toEqual([451, 451, 451, 451, 451]);

    const givenUp = t.logs.map((line) => JSON.parse(line)).filter((line) => line.approvalId === approvalId);
    expect(givenUp).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'approval e-mail given up after its last attempt',
        tenantId: tenant.tenantId,
        approvalId,
        recipients: 1,
        attempts: 5,
        error: 'the mail server answered 451 (EMESSAGE)',
      }),
    ]);
    expect(t.logs.join('\n')).not.toContain(SMTP_PASSWORD);
    expect(t.logs.join('\n')).not.toContain(reviewer);
  });

  it('never holds up evaluate or other e-mails while a mail server does not answer', async () => {
    const reviewer = uniqueEmail('hung');
    const { tenant, agent, requestApproval } = await tenantWithReviewers(true, [reviewer]);
    smtp.answer(reviewer, ['hold', 'accept']);
    onTestFinished(() => smtp.release('accept'));
    await requestApproval();
    const [hung] = await waitForApprovalMails(smtp, reviewer);

    // Decided and answered while the first message still waits for the server's reply.
    const second = await evaluation(t.app, tenant, action(agent.id));
    expect(second).toMatchObject({ decision: 'approval_required', risk_classification: 'medium' });
    const [, sent] = await waitForApprovalMails(smtp, reviewer, 2);
    expect(sent).toMatchObject(await expectedMessage(tenant, second.approval_request_id!));
    expect(sent!.answer).toBe('accepted');
    expect(hung!.answer).toBe('held');

    smtp.release('accept');
    await emailsSettled(t, tenant.tenantId);
    expect(hung!.answer).toBe('accepted');
  });
});

describe('approval e-mails without SMTP_URL', () => {
  const t = useTestApp({ ownDatabase: true, jobs: true, env: FAST_DISPATCH_ENV });

  it('sends nothing and says once that e-mail is not configured', async () => {
    const { tenant, agent } = await approvalRequired(t.app);
    const saved = await putSettings(t, tenant.admin, { email_enabled: true, reviewer_emails: [uniqueEmail('unsent')] });
    expect(saved.statusCode, saved.body).toBe(200);
    await evaluation(t.app, tenant, action(agent.id));
    await evaluation(t.app, tenant, action(agent.id));

    await emailsSettled(t, tenant.tenantId);
    const warnings = t.logs.map((line) => JSON.parse(line)).filter((line) => line.level === 40);
    expect(warnings.map((line) => line.msg)).toEqual(['e-mail is not configured (SMTP_URL unset)']);
  });
});
