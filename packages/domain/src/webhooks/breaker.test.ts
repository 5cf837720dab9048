import { describe, expect, it } from 'vitest';
import { EndpointBreaker } from './breaker.js';

const COOLDOWN_MS = 60_000;

/** A breaker whose endpoint `hanging` has just had a post time out, at time 1 000. */
function tripped() {
  const breaker = new EndpointBreaker(COOLDOWN_MS);
  expect(breaker.admit('hanging', 0)).toBe('send');
  breaker.settle('hanging', 'send', true, 1_000);
  return breaker;
}

describe('EndpointBreaker', () => {
  it('sends to endpoints that answer, whatever the answer', () => {
    const breaker = new EndpointBreaker(COOLDOWN_MS);
    expect(breaker.admit('a', 0)).toBe('send');
    breaker.settle('a', 'send', false, 10);
    expect(breaker.admit('a', 20)).toBe('send');
    expect(breaker.admit('a', 20)).toBe('send');
  });

  it('after a timeout, lets one delivery probe and holds the rest until it ends', () => {
    const breaker = tripped();
    expect(breaker.admit('hanging', 1_001)).toBe('probe');
    expect(breaker.admit('hanging', 1_002)).toBe('hold');
    expect(breaker.admit('hanging', 5_000)).toBe('hold');
    // Other endpoints are not affected.
    expect(breaker.admit('other', 1_002)).toBe('send');
  });

  it('trusts the endpoint again once the probe gets an answer', () => {
    const breaker = tripped();
    expect(breaker.admit('hanging', 1_001)).toBe('probe');
    expect(breaker.endpointsInTrouble).toBe(1);
    breaker.settle('hanging', 'probe', false, 1_050);
    expect(breaker.endpointsInTrouble).toBe(0);
    expect(breaker.admit('hanging', 1_051)).toBe('send');
    expect(breaker.admit('hanging', 1_052)).toBe('send');
  });

  it('refuses deliveries for the cooldown after the probe times out, then probes again', () => {
    const breaker = tripped();
    expect(breaker.admit('hanging', 1_001)).toBe('probe');
    breaker.settle('hanging', 'probe', true, 11_001);
    expect(breaker.admit('hanging', 11_002)).toBe('refuse');
    expect(breaker.admit('hanging', 11_001 + COOLDOWN_MS - 1)).toBe('refuse');
    expect(breaker.admit('hanging', 11_001 + COOLDOWN_MS)).toBe('probe');
    expect(breaker.admit('hanging', 11_001 + COOLDOWN_MS)).toBe('hold');
  });

  it('ignores the timeouts of posts sent before the trouble was known', () => {
    const breaker = tripped();
    expect(breaker.admit('hanging', 1_001)).toBe('probe');
    breaker.settle('hanging', 'send', true, 1_002);
    expect(breaker.admit('hanging', 1_003)).toBe('hold');
    breaker.settle('hanging', 'probe', true, 11_001);
    breaker.settle('hanging', 'send', true, 11_002);
    expect(breaker.admit('hanging', 11_003)).toBe('refuse');
  });

  it('trusts the endpoint again when any post to it is answered', () => {
    const breaker = tripped();
    expect(breaker.admit('hanging', 1_001)).toBe('probe');
    breaker.settle('hanging', 'probe', true, 11_001);
    breaker.settle('hanging', 'send', false, 11_002);
    expect(breaker.admit('hanging', 11_003)).toBe('send');
  });
});
