import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { outbox } from '@agov/db';
import { FAST_DISPATCH_ENV } from '../../../test/processes.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/smtp-receiver.js';
import { expectErrorBody, expectInvalidBody } from './assertions.js';
import { client } from './client.js';
import { action } from './fixtures.js';
import { signupTenant, type Tenant, TestClock, uniqueEmail, useTestApp } from './harness.js';
import {
  approvalMailsTo,
  CONFIRMATION_SUBJECT,
  confirmationsTo,
  confirmWith,
  effectsSettled,
  tokenOf,
  waitForApprovalMails,
  waitForConfirmations,
} from './reviewers.js';
import { approvalRequired, evaluation } from './scenarios.js';

/*
 * Reviewer addresses confirmed by their owners, through the outbox dispatched in-process to a
 * real local SMTP server. The clock moves back to put mail in the past (a day ago, an earlier
 * hour): effects are due when the database's own clock passes theirs, so it never moves ahead.
 */
const SETTINGS = '/api/v1/settings/notifications';
const PUBLIC_URL = 'https://governance.example.com';
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const clock = new TestClock();
let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
afterAll(() => smtp.close());
const t = useTestApp(() => ({
  ownDatabase: true,
  jobs: true,
  clock,
  env: { ...FAST_DISPATCH_ENV, SMTP_URL: smtp.url, SMTP_FROM: 'Agent Governance <governance@example.test>', PUBLIC_URL },
}));
const api = client(t);

/** Moves the clock by `ms` for the rest of the test. */
function moveClock(ms: number) {
  clock.advance(ms);
  onTestFinished(() => clock.advance(-ms));
}

const saveReviewers = async (tenant: Tenant, reviewers: string[]) => {
  const saved = await api.put(tenant.admin, SETTINGS, { email_enabled: true, reviewer_emails: reviewers });
  expect(saved.statusCode, saved.body).toBe(200);
  return saved.json().data;
};

const unconfirmedOf = async (tenant: Tenant) => (await api.get(tenant.admin, SETTINGS)).json().data.unconfirmed_emails;

/** Once every mail the tenant's saves and approvals asked for has gone out (or been dropped). */
async function mailSettled(tenant: Tenant) {
  await effectsSettled(t, tenant.tenantId, 'email_confirmation');
  await effectsSettled(t, tenant.tenantId, 'approval_email');
}

describe('reviewer address confirmation', () => {
  it('asks a new address once, mails it no approval until it is confirmed, then one message per confirmed reviewer', async () => {
    const [rita, sam] = [uniqueEmail('rita'), uniqueEmail('sam')];
    const { tenant, agent } = await approvalRequired(t.app);
    expect(await saveReviewers(tenant, [rita, sam])).toEqual({
      email_enabled: true,
      reviewer_emails: [rita, sam],
      escalation_emails: [],
      unconfirmed_emails: [rita, sam],
    });

    const [asked] = await waitForConfirmations(smtp, rita);
    const token = tokenOf(asked!);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const link = `${PUBLIC_URL}/confirm-email?token=${token}`;
    expect(asked).toMatchObject({
      envelope: { from: 'governance@example.test', to: [rita] },
      headers: { to: rita, subject: CONFIRMATION_SUBJECT },
      text: [
        'The organization "Acme" asks to send its approval requests to this address.',
        '',
        'If you expect them, confirm the address on this page (the link works once):',
        link,
        '',
        'If you ignore this message, nothing happens: this address receives no approval requests from it.',
        '',
      ].join('\n'),
    });
    expect(asked!.html).toContain(`<a href="${link}">${link}</a>`);

    // Before anyone confirms, approval requests mail nobody.
    await evaluation(t.app, tenant, action(agent.id));
    await mailSettled(tenant);
    expect([confirmationsTo(smtp, rita).length, confirmationsTo(smtp, sam).length]).toEqual([1, 1]);
    expect([approvalMailsTo(smtp, rita), approvalMailsTo(smtp, sam)]).toEqual([[], []]);

    expect((await confirmWith(t.app, { token })).statusCode).toBe(204);
    expect(await unconfirmedOf(tenant)).toEqual([sam]);
    const first = await evaluation(t.app, tenant, action(agent.id));
    await mailSettled(tenant);
    expect(approvalMailsTo(smtp, rita)).toEqual([
      expect.objectContaining({
        envelope: { from: 'governance@example.test', to: [rita] },
        text: expect.stringContaining(first.approval_request_id!),
      }),
    ]);
    expect(approvalMailsTo(smtp, sam)).toEqual([]);

    const [samAsked] = await waitForConfirmations(smtp, sam);
    expect((await confirmWith(t.app, { token: tokenOf(samAsked!) })).statusCode).toBe(204);
    const second = await evaluation(t.app, tenant, action(agent.id));
    for (const reviewer of [rita, sam]) {
      const mails = await waitForApprovalMails(smtp, reviewer, reviewer === rita ? 2 : 1);
      const mail = mails.at(-1)!;
      expect(mail.envelope.to).toEqual([reviewer]);
      expect(mail.headers.to).toBe(reviewer);
      expect(mail.text).toContain(`${PUBLIC_URL}/approvals/${second.approval_request_id}`);
    }

    // Saved again, in another letter case: still confirmed, and nobody is asked again.
    expect(await saveReviewers(tenant, [rita.toUpperCase(), sam])).toMatchObject({ unconfirmed_emails: [] });
    await mailSettled(tenant);
    expect([confirmationsTo(smtp, rita).length, confirmationsTo(smtp, sam).length]).toEqual([1, 1]);
  });

  it('takes a token once, in a POST without credentials; opening the link confirms nothing', async () => {
    const tenant = await signupTenant(t.app);
    const reviewer = uniqueEmail('once');
    await saveReviewers(tenant, [reviewer]);
    const token = tokenOf((await waitForConfirmations(smtp, reviewer))[0]!);

    // What a mail scanner does with the link: the dashboard's page, and no confirmation.
    const page = await t.app.inject({ method: 'GET', url: `/confirm-email?token=${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(await unconfirmedOf(tenant)).toEqual([reviewer]);

    expectInvalidBody(await confirmWith(t.app, { token, email: reviewer }), [['email', 'is not allowed']]);
    expectInvalidBody(await confirmWith(t.app, {}), [['token', 'is required']]);
    expectInvalidBody(await confirmWith(t.app, { token: '' }), [['token', 'must NOT have fewer than 1 characters']]);
    const notFound = { error: 'not_found', message: 'This confirmation link is not valid or was already used' };
    expectErrorBody(await confirmWith(t.app, { token: randomBytes(32).toString('base64url') }), 404, notFound);
    expect(await unconfirmedOf(tenant)).toEqual([reviewer]);

    expect((await confirmWith(t.app, { token })).statusCode).toBe(204);
    expect(await unconfirmedOf(tenant)).toEqual([]);
    expectErrorBody(await confirmWith(t.app, { token }), 404, notFound);
  });

  it('mails an address at most once a day, whichever tenant lists it; a day later a save sends a new link that replaces the old', async () => {
    const [ours, theirs] = [await signupTenant(t.app, 'Ours'), await signupTenant(t.app, 'Theirs')];
    const shared = uniqueEmail('shared');
    const confirmationRows = (tenant: Tenant) =>
      t.runtime.database.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.tenantId, tenant.tenantId), eq(outbox.kind, 'email_confirmation')));

    moveClock(-DAY_MS - MINUTE_MS);
    await saveReviewers(ours, [shared]);
    const [fromOurs] = await waitForConfirmations(smtp, shared);
    expect(fromOurs!.text).toContain('The organization "Ours" asks');
    await mailSettled(ours);

    // Two minutes short of a day later, neither tenant's save mails it again.
    moveClock(DAY_MS - 2 * MINUTE_MS);
    expect(await saveReviewers(theirs, [shared])).toMatchObject({ unconfirmed_emails: [shared] });
    expect(await confirmationRows(theirs)).toEqual([]);
    await saveReviewers(ours, [shared]);
    expect(await confirmationRows(ours)).toEqual([]);

    // A day after the first, our save sends a new link; the old one no longer works.
    moveClock(2 * MINUTE_MS);
    await saveReviewers(ours, [shared]);
    const [, again] = await waitForConfirmations(smtp, shared, 2);
    expect(again!.text).toContain('The organization "Ours" asks');
    // Theirs must wait a day from this one.
    await saveReviewers(theirs, [shared]);
    expect(await confirmationRows(theirs)).toEqual([]);
    await mailSettled(ours);
    expect(confirmationsTo(smtp, shared)).toHaveLength(2);

    expect((await confirmWith(t.app, { token: tokenOf(fromOurs!) })).statusCode).toBe(404);
    expect((await confirmWith(t.app, { token: tokenOf(again!) })).statusCode).toBe(204);
    // Confirmed for the tenant that asked, not for every tenant that lists the address.
    expect([await unconfirmedOf(ours), await unconfirmedOf(theirs)]).toEqual([[], [shared]]);
  });
});

describe("a tenant's hourly mail cap", () => {
  it('holds a free tenant to 100 messages an hour, confirmations included, with one warning and no address in the log', async () => {
    // The start of an hour two hours ago, so that the test's mail all falls in one hour.
    const hourAgo = (Date.now() % HOUR_MS) + 2 * HOUR_MS - 1_000;
    moveClock(-hourAgo);
    const { tenant, agent } = await approvalRequired(t.app);
    const reviewers = Array.from({ length: 50 }, (_, i) => uniqueEmail(`capped${i}`));
    await saveReviewers(tenant, reviewers);
    for (const reviewer of reviewers) {
      const [asked] = await waitForConfirmations(smtp, reviewer);
      expect((await confirmWith(t.app, { token: tokenOf(asked!) })).statusCode).toBe(204);
    }

    // 50 confirmations and 50 approval messages make 100: every later message this hour is dropped.
    await evaluation(t.app, tenant, action(agent.id));
    await mailSettled(tenant);
    await evaluation(t.app, tenant, action(agent.id));
    await evaluation(t.app, tenant, action(agent.id));
    await mailSettled(tenant);
    const [late, ...kept] = [uniqueEmail('late'), ...reviewers.slice(1)];
    expect(await saveReviewers(tenant, [late, ...kept])).toMatchObject({ unconfirmed_emails: [late] });
    await mailSettled(tenant);
    expect(reviewers.map((reviewer) => approvalMailsTo(smtp, reviewer).length)).toEqual(reviewers.map(() => 1));
    expect(confirmationsTo(smtp, late)).toEqual([]);

    const warnings = t.logs.filter((line) => line.includes(tenant.tenantId) && JSON.parse(line).level === 40);
    expect(warnings.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        msg: "a tenant's e-mail reached its plan's hourly cap: messages over it are not sent",
        tenantId: tenant.tenantId,
        plan: 'free',
        perHour: 100,
      }),
    ]);
    expect(warnings.join('')).not.toContain('@');

    // Two hours on, the cap has room again: the address left unasked is asked at the next save.
    moveClock(2 * HOUR_MS);
    await saveReviewers(tenant, [late, ...kept]);
    await waitForConfirmations(smtp, late);
    await evaluation(t.app, tenant, action(agent.id));
    await waitForApprovalMails(smtp, kept[0]!, 2);
  });
});
