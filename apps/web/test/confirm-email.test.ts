import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_DISPATCH_ENV } from '../../../test/processes.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/smtp-receiver.js';
import {
  callApi,
  expectAccessible,
  launchBrowser,
  newPage,
  PASSWORD,
  screenshot,
  type Service,
  signIn,
  signUp,
  startService,
} from './browser.js';

/** An admin lists a reviewer; the reviewer, with no account, confirms from the mailed link. */
describe('confirming a reviewer address', () => {
  let smtp: SmtpReceiver;
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    [service, browser] = await Promise.all([startService({ SMTP_URL: smtp.url, ...FAST_DISPATCH_ENV }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await smtp?.close();
  });

  it('shows the address awaiting confirmation until its owner presses the button on the mailed link, which works once', async () => {
    const account = await signUp(service, 'Confirm Co');
    const reviewer = `rita.${Date.now()}@example.test`;
    const admin = await newPage(browser, service.baseUrl);
    await signIn(admin.page, account.email, PASSWORD, '/settings');
    await admin.page.getByLabel('Reviewer addresses').fill(reviewer);
    await admin.page.getByRole('button', { name: 'Save e-mail settings' }).click();
    const awaiting = admin.page.getByRole('list', { name: 'Addresses awaiting confirmation' });
    await expect.poll(() => awaiting.getByRole('listitem').allTextContents()).toEqual([`${reviewer} awaiting confirmation`]);

    const [mail] = await smtp.waitFor(reviewer, 1);
    const link = /^http\S+$/m.exec(mail!.text)?.[0];
    expect(link).toMatch(new RegExp(`^${service.baseUrl}/confirm-email\\?token=[\\w-]{43}$`));

    // The reviewer's own browser: no session. Opening the page confirms nothing.
    const owner = await newPage(browser, service.baseUrl, 'phone');
    await owner.page.goto(link!);
    const press = owner.page.getByRole('button', { name: 'Confirm this address' });
    await press.waitFor();
    const settings = () => callApi<{ data: { unconfirmed_emails: string[] } }>(service, account, 'GET', '/api/v1/settings/notifications');
    expect((await settings()).data.unconfirmed_emails).toEqual([reviewer]);
    await expectAccessible(owner.page);
    await screenshot(owner.page, 'confirm-email-phone');

    await press.click();
    await expect.poll(() => owner.page.getByRole('status').textContent()).toContain('This address now receives the approval requests');
    expect((await settings()).data.unconfirmed_emails).toEqual([]);

    await owner.page.goto(link!);
    await press.click();
    await expect.poll(() => owner.page.getByRole('alert').textContent()).toBe('This link is not valid or was already used.');

    await admin.page.reload();
    await expect.poll(() => admin.page.getByLabel('Reviewer addresses').inputValue()).toBe(reviewer);
    expect(await awaiting.count()).toBe(0);
    await owner.context.close();
    await admin.context.close();
  });
});
