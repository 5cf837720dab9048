import { describe, expect, it } from 'vitest';
import { isFreshTimestamp, isSignatureShaped, signatureMatches, slackSignature } from './signature.js';

// Slack's worked example in "Verifying requests from Slack" (docs.slack.dev): a slash
// command's body, the app's signing secret, and the signature Slack sent with them.
const VECTOR = {
  secret: '8f742231b10e8888abcd99yyyzzz85a5',
  timestamp: '1531420618',
  body:
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
    '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com' +
    '%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
  signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
};

describe('Slack request signatures', () => {
  it("reproduces Slack's published example", () => {
    const body = Buffer.from(VECTOR.body);
    expect(slackSignature(VECTOR.secret, VECTOR.timestamp, body)).toBe(VECTOR.signature);
    expect(signatureMatches(VECTOR.secret, VECTOR.timestamp, body, VECTOR.signature)).toBe(true);
  });

  it('refuses another body, timestamp or secret', () => {
    const body = Buffer.from(VECTOR.body);
    expect(signatureMatches(VECTOR.secret, VECTOR.timestamp, Buffer.from(`${VECTOR.body}&x=1`), VECTOR.signature)).toBe(false);
    expect(signatureMatches(VECTOR.secret, '1531420619', body, VECTOR.signature)).toBe(false);
    expect(signatureMatches('8f742231b10e8888abcd99yyyzzz85a6', VECTOR.timestamp, body, VECTOR.signature)).toBe(false);
  });

  it('accepts only v0 signatures of the right length', () => {
    expect(isSignatureShaped(VECTOR.signature)).toBe(true);
    expect(isSignatureShaped(VECTOR.signature.slice(0, -1))).toBe(false);
    expect(isSignatureShaped(`${VECTOR.signature}0`)).toBe(false);
    expect(isSignatureShaped(VECTOR.signature.replace('v0=', 'v1='))).toBe(false);
    expect(isSignatureShaped(VECTOR.signature.toUpperCase())).toBe(false);
    expect(isSignatureShaped(undefined)).toBe(false);
  });

  it('accepts timestamps up to 5 minutes away in either direction', () => {
    const now = new Date(Number(VECTOR.timestamp) * 1000);
    expect(isFreshTimestamp(VECTOR.timestamp, now)).toBe(true);
    expect(isFreshTimestamp(String(Number(VECTOR.timestamp) - 300), now)).toBe(true);
    expect(isFreshTimestamp(String(Number(VECTOR.timestamp) + 300), now)).toBe(true);
    expect(isFreshTimestamp(String(Number(VECTOR.timestamp) - 301), now)).toBe(false);
    expect(isFreshTimestamp(String(Number(VECTOR.timestamp) + 301), now)).toBe(false);
    for (const malformed of [undefined, '', '1531420618.5', '-1531420618', ' 1531420618', '1e9', '9999999999999'])
      expect(isFreshTimestamp(malformed, now)).toBe(false);
  });
});
