import { describe, expect, it } from 'vitest';
import { safeNext } from './next';

const ORIGIN = 'https://governance.example.test';

describe('where sign-in sends a user afterwards', () => {
  it.each([
    ['/approvals/x?y=1', '/approvals/x?y=1'],
    ['/', '/'],
    ['/traces?outcome=denied#events', '/traces?outcome=denied#events'],
    // An escaped slash or backslash in the query is data for the page, not part of the path.
    ['/agents?search=%5C', '/agents?search=%5C'],
    ['/agents?search=a%2F%2Fb', '/agents?search=a%2F%2Fb'],
  ])('keeps the path of this app %s', (next, expected) => {
    expect(safeNext(next, ORIGIN)).toBe(expected);
  });

  it.each([
    ['a backslash read as a second slash', '/\\evil.com'],
    ['a protocol-relative URL', '//evil.com'],
    ['an escaped backslash', '/%5Cevil.com'],
    ['an escaped slash', '/%2Fevil.com'],
    ['a backslash later in the path', '/approvals\\..\\..\\evil.com'],
    ['an absolute URL', 'https://evil.com'],
    ['an absolute URL of this very origin', `${ORIGIN}/approvals`],
    ['a javascript: URL', 'javascript:alert(document.cookie)'],
    ['a tab the browser would drop', '/\t/evil.com'],
    ['a newline', '/approvals\n'],
    ['an escaped tab', '/%09/evil.com'],
    ['a malformed escape', '/approvals/%E0%A4%A'],
    ['a relative path', 'approvals'],
    ['nothing', ''],
  ])('refuses %s and goes home', (_label, next) => {
    expect(safeNext(next, ORIGIN)).toBe('/');
  });

  it('goes home without a next', () => {
    expect(safeNext(null, ORIGIN)).toBe('/');
  });
});
