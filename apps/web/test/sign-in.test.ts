import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, newPage, PASSWORD, screenshot, type Service, signIn, signUp, startService } from './browser.js';

describe('signing up, in and out', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('creates an organisation, shows the key once, and lands on the dashboard', async () => {
    const { page, context } = await newPage(browser, service.baseUrl);
    await page.goto('/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    await page.getByRole('link', { name: 'Create an organisation' }).click();
    await expectAccessible(page);
    await page.getByLabel('Organisation').fill('Browser Co');
    await page.getByLabel('Your name').fill('Bea Browser');
    await page.getByLabel('E-mail').fill('bea@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create organisation' }).click();

    await expect.poll(() => page.getByRole('heading', { name: 'Welcome, Bea Browser' }).isVisible()).toBe(true);
    expect(await page.locator('code.secret').textContent()).toMatch(/^ai_[0-9a-f]{64}$/);
    await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.locator('.topbar').textContent()).toContain('Browser Co');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    await context.close();
  });

  it('rejects a wrong password with the service message, then signs in and returns to the page asked for', async () => {
    const account = await signUp(service);
    const { page, context } = await newPage(browser, service.baseUrl, 'phone');
    await page.goto('/traces?outcome=denied');
    await expect.poll(() => page.url()).toBe(`${service.baseUrl}/sign-in?next=${encodeURIComponent('/traces?outcome=denied')}`);
    await expectAccessible(page);
    await screenshot(page, 'sign-in-phone');

    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid');

    await signIn(page, account.email, PASSWORD, page.url());
    await expect.poll(() => page.url()).toBe(`${service.baseUrl}/traces?outcome=denied`);
    await context.close();
  });

  it('signs in from a link whose next would leave the app, and stays on its own overview', async () => {
    const account = await signUp(service);
    const { page, context } = await newPage(browser, service.baseUrl);
    // Were the app to leave, it would land here rather than ask the network for evil.com.
    await context.route('http://evil.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<h1>Elsewhere</h1>' }));
    await page.goto('/sign-in?next=/\\evil.com');
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${service.baseUrl}/`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await context.close();
  });
});
