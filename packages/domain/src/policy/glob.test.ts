import { describe, expect, it } from 'vitest';
import { globMatches } from './glob.js';

describe('globMatches', () => {
  it('matches a pattern without stars only exactly', () => {
    expect(globMatches('repo/main', 'repo/main')).toBe(true);
    expect(globMatches('repo/main', 'repo/mai')).toBe(false);
    expect(globMatches('repo/main', 'repo/main/x')).toBe(false);
    expect(globMatches('repo/main', 'Repo/main')).toBe(false);
  });

  it('matches the empty pattern only against the empty value', () => {
    expect(globMatches('', '')).toBe(true);
    expect(globMatches('', 'a')).toBe(false);
  });

  it('lets a lone star match anything, including nothing and slashes', () => {
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('*', 'a/b/c')).toBe(true);
  });

  it('treats a leading star as "ends with"', () => {
    expect(globMatches('*.csv', 'reports/2024/q1.csv')).toBe(true);
    expect(globMatches('*.csv', '.csv')).toBe(true);
    expect(globMatches('*.csv', 'q1.csv.bak')).toBe(false);
  });

  it('treats a trailing star as "starts with"', () => {
    expect(globMatches('s3://bucket/*', 's3://bucket/a/b')).toBe(true);
    expect(globMatches('s3://bucket/*', 's3://bucket/')).toBe(true);
    expect(globMatches('s3://bucket/*', 's3://bucket')).toBe(false);
  });

  it('finds middle segments in order', () => {
    expect(globMatches('a*b*c', 'a-b-c')).toBe(true);
    expect(globMatches('a*b*c', 'abc')).toBe(true);
    expect(globMatches('a*b*c', 'a-c-b')).toBe(false);
    expect(globMatches('*x*y*', 'yx')).toBe(false);
    expect(globMatches('*x*y*', '..x..y..')).toBe(true);
  });

  it('keeps a middle segment clear of the suffix', () => {
    expect(globMatches('a*cb*b', 'acb')).toBe(false);
    expect(globMatches('a*cb*b', 'acbb')).toBe(true);
  });

  it('treats consecutive stars as one', () => {
    expect(globMatches('**', '')).toBe(true);
    expect(globMatches('a**b', 'ab')).toBe(true);
    expect(globMatches('a**b', 'a/x/b')).toBe(true);
    expect(globMatches('a***b', 'a')).toBe(false);
  });

  it('does not let the prefix and suffix overlap', () => {
    expect(globMatches('ab*ba', 'aba')).toBe(false);
    expect(globMatches('ab*ba', 'abba')).toBe(true);
    expect(globMatches('a*a', 'a')).toBe(false);
  });

  it('treats regular-expression metacharacters literally', () => {
    expect(globMatches('a.c', 'abc')).toBe(false);
    expect(globMatches('a.c', 'a.c')).toBe(true);
    expect(globMatches('a+', 'aa')).toBe(false);
    expect(globMatches('(x|y)*', '(x|y)z')).toBe(true);
    expect(globMatches('(x|y)*', 'x')).toBe(false);
    expect(globMatches('[ab]', 'a')).toBe(false);
    expect(globMatches('[ab]', '[ab]')).toBe(true);
    expect(globMatches('a\\*', 'a\\bc')).toBe(true);
    expect(globMatches('a\\*', 'a*')).toBe(false);
    expect(globMatches('?', 'x')).toBe(false);
    expect(globMatches('^$', '^$')).toBe(true);
  });

  // A backtracking matcher would try on the order of C(1000, 30) placements here and never
  // finish; the linear one answers in microseconds, far inside the generous timeout.
  it('answers correctly for many stars against a long value', { timeout: 5_000 }, () => {
    const manyStars = `${'a*'.repeat(30)}b`;
    const noMatch = 'a'.repeat(1000);
    const match = `${'a'.repeat(999)}b`;

    expect(globMatches(manyStars, noMatch)).toBe(false);
    expect(globMatches(manyStars, match)).toBe(true);
  });
});
