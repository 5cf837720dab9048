import canonicalizeModule from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize } from './canonical-json.js';

/** The reference implementation of RFC 8785, the one the SDK verifies exports with. */
const reference = canonicalizeModule as unknown as (input: unknown) => string | undefined;

describe('canonicalize', () => {
  it('writes the reference implementation’s text for any JSON value, whatever its strings hold', () => {
    const values = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      // Any UTF-16 code units, lone surrogates and control characters included, in keys and values.
      fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }),
      fc.dictionary(
        fc.string({ unit: 'binary' }),
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean()),
      ),
    );
    fc.assert(
      fc.property(values, (value) => {
        expect(canonicalize(value)).toBe(reference(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('sorts keys by UTF-16 code units and writes numbers as ECMAScript does', () => {
    const value = { é: 1, z: [1e21, 0.1, -0, 5e-7], a: { '\ud83d\ude00': true, '\uffff': null }, A: 'line\nbreak' };
    expect(canonicalize(value)).toBe('{"A":"line\\nbreak","a":{"😀":true,"\uffff":null},"z":[1e+21,0.1,0,5e-7],"é":1}');
    expect(canonicalize(value)).toBe(reference(value));
  });

  it('refuses what JSON cannot hold', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, { n: Number.NEGATIVE_INFINITY }, [10n]]) {
      expect(() => canonicalize(value)).toThrow();
    }
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalize(cycle)).toThrow();
  });
});
