import { describe, expect, it } from 'vitest';
import { expectErrorBody, stopUntilTestEnds } from './assertions.js';
import { useTestApp, PASSWORD, signupTenant, TestClock, uniqueEmail } from './harness.js';
import { expectRateLimited } from './rate-limit-support.js';

/*
 * Failed sign-ins are limited per account and client address: from one address five attempts
 * go through, then each must wait 2 s, 4 s, 8 s … Across addresses an account has a ceiling
 * of 100, which slows only addresses that have failed on it. The clock is stopped, so every
 * delay is exact.
 */
const FREE_ATTEMPTS = 5;
const ACCOUNT_CEILING = 100;
const clock = new TestClock();
const t = useTestApp({ clock });

let addresses = 0;
/** A client address no earlier attempt came from. */
const newAddress = () => {
  addresses += 1;
  return `10.${Math.floor(addresses / 62_500) % 250}.${Math.floor(addresses / 250) % 250}.${(addresses % 250) + 1}`;
};
const GUESSER = '192.0.2.66';
const login = (email: string, password: string, remoteAddress = GUESSER) =>
  t.app.inject({ method: 'POST', url: '/api/v1/auth/login', remoteAddress, payload: { email, password } });
const WRONG = 'not the password!';
const invalid = { error: 'unauthorized', message: 'Invalid e-mail or password' };
const throttled = (nowMs: number, retryAtMs: number, limit = FREE_ATTEMPTS) => ({
  category: 'login',
  limit,
  message: 'Too many failed sign-in attempts for this account; try again later',
  nowMs,
  retryAtMs,
});

describe('failed sign-in throttling per account and address', () => {
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

  it('never refuses the right password from an address without failures, however long another is held back', async () => {
    const { email } = await signupTenant(t.app);
    const now = stopUntilTestEnds(clock).getTime();
    for (let i = 0; i < FREE_ATTEMPTS; i += 1) expectErrorBody(await login(email, WRONG), 401, invalid);
    expectRateLimited(await login(email, WRONG), throttled(now, now + 2_000));

    expect((await login(email, PASSWORD, newAddress())).statusCode).toBe(200);
    // The owner's success does not free the guesser.
    expectRateLimited(await login(email, WRONG), throttled(now, now + 2_000));
  });

  it('slows every address that failed once the account has 100 failures, and still admits one that has not', async () => {
    const { email } = await signupTenant(t.app);
    const now = stopUntilTestEnds(clock).getTime();
    const failed = Array.from({ length: ACCOUNT_CEILING }, newAddress);
    for (const address of failed) expectErrorBody(await login(email, WRONG, address), 401, invalid);

    expectRateLimited(await login(email, PASSWORD, failed[0]), throttled(now, now + 2_000, ACCOUNT_CEILING));
    expectErrorBody(await login(email, WRONG, newAddress()), 401, invalid);
    expect((await login(email, PASSWORD, newAddress())).statusCode).toBe(200);
    // Those two attempts counted on the account too: 102 failures, so the wait is now 8 s.
    clock.step(2_000);
    expectRateLimited(await login(email, PASSWORD, failed[0]), throttled(now + 2_000, now + 8_000, ACCOUNT_CEILING));
    clock.step(6_000);
    expect((await login(email, PASSWORD, failed[0])).statusCode).toBe(200);
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
