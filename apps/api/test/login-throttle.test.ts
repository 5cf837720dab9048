import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, stopUntilTestEnds } from './assertions.js';
import { createTestApp, PASSWORD, signupTenant, TestClock, uniqueEmail, type TestApp } from './harness.js';
import { expectRateLimited } from './rate-limit-support.js';

/*
 * Failed sign-ins are limited per account (e-mail), whatever address they come from: five
 * attempts go through, then each must wait 2 s, 4 s, 8 s … The clock is stopped, so every
 * delay is exact.
 */
const FREE_ATTEMPTS = 5;
const clock = new TestClock();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

let addresses = 0;
/** Each attempt from another address: the per-address limit plays no part. */
const login = (email: string, password: string) => {
  addresses += 1;
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    remoteAddress: `10.0.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`,
    payload: { email, password },
  });
};
const WRONG = 'not the password!';
const invalid = { error: 'unauthorized', message: 'Invalid e-mail or password' };
const throttled = (nowMs: number, retryAtMs: number) => ({
  category: 'login',
  limit: FREE_ATTEMPTS,
  message: 'Too many failed sign-in attempts for this account; try again later',
  nowMs,
  retryAtMs,
});

describe('failed sign-in throttling per account', () => {
  it('lets five failures through, then makes each further attempt wait a doubling delay', async () => {
    const { email } = await signupTenant(t.app);
    const now = stopUntilTestEnds(clock).getTime();
    for (let i = 0; i < FREE_ATTEMPTS; i += 1) expectErrorBody(await login(email, WRONG), 401, invalid);

    expectRateLimited(await login(email, WRONG), throttled(now, now + 2_000));
    // The right password does not get through either while the account is held back.
    expectRateLimited(await login(email, PASSWORD), throttled(now, now + 2_000));

    clock.step(2_000);
    expectErrorBody(await login(email, WRONG), 401, invalid);
    expectRateLimited(await login(email, WRONG), throttled(now + 2_000, now + 6_000));
    clock.step(4_000);
    expectErrorBody(await login(email, WRONG), 401, invalid);
    expectRateLimited(await login(email, PASSWORD), throttled(now + 6_000, now + 14_000));
  });

  it('answers an address that has no account exactly as one that has', async () => {
    const { email } = await signupTenant(t.app);
    const unknown = uniqueEmail('nobody');
    const now = stopUntilTestEnds(clock).getTime();
    for (let i = 0; i < FREE_ATTEMPTS; i += 1) {
      expectErrorBody(await login(email, WRONG), 401, invalid);
      expectErrorBody(await login(unknown, WRONG), 401, invalid);
    }
    expectRateLimited(await login(email, WRONG), throttled(now, now + 2_000));
    expectRateLimited(await login(unknown, WRONG), throttled(now, now + 2_000));
  });

  it('keys on the e-mail as sign-in compares it, in any case', async () => {
    const { email } = await signupTenant(t.app);
    const now = stopUntilTestEnds(clock).getTime();
    for (let i = 0; i < FREE_ATTEMPTS; i += 1) expect((await login(i % 2 ? email.toUpperCase() : email, WRONG)).statusCode).toBe(401);
    expectRateLimited(await login(email.toUpperCase(), PASSWORD), throttled(now, now + 2_000));
  });

  it('forgets the failures on a successful sign-in', async () => {
    const { email } = await signupTenant(t.app);
    stopUntilTestEnds(clock);
    for (let i = 0; i < FREE_ATTEMPTS - 1; i += 1) expect((await login(email, WRONG)).statusCode).toBe(401);
    expect((await login(email, PASSWORD)).statusCode).toBe(200);
    for (let i = 0; i < FREE_ATTEMPTS; i += 1) expect((await login(email, WRONG)).statusCode).toBe(401);
    expect((await login(email, WRONG)).statusCode).toBe(429);
  });

  it('forgets the failures after 15 quiet minutes', async () => {
    const { email } = await signupTenant(t.app);
    stopUntilTestEnds(clock);
    for (let i = 0; i < FREE_ATTEMPTS; i += 1) expect((await login(email, WRONG)).statusCode).toBe(401);
    // The last failure's 2 s delay, then 15 minutes.
    clock.step(2_000 + 15 * 60_000 - 1);
    expect((await login(email, WRONG)).statusCode).toBe(401);
    expect((await login(email, WRONG)).statusCode).toBe(429);
    // Forgotten: five attempts go through again.
    clock.step(4_000 + 15 * 60_000);
    for (let i = 0; i < FREE_ATTEMPTS; i += 1) expect((await login(email, WRONG)).statusCode).toBe(401);
    expect((await login(email, PASSWORD)).statusCode).toBe(429);
  });
});
