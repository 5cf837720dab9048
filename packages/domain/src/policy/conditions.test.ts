import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../support/errors.js';
import { ConditionBudget, ConditionBudgetExceeded } from './condition-budget.js';
import { assertValidConditions, conditionsHold as holdsWithin, readsContext } from './conditions.js';

const conditionsHold = (conditions: object, data: object) => holdsWithin(conditions, data, new ConditionBudget());

function rejection(conditions: unknown, field?: string): AppError {
  try {
    assertValidConditions(conditions, field);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the conditions to be rejected');
}

describe('assertValidConditions', () => {
  it.each([
    ['a comparison', { '>': [{ var: 'context.amount' }, 1000] }],
    ['nested logic', { and: [{ '==': [{ var: 'agent.environment' }, 'prod'] }, { in: ['x', { var: 'context.tags' }] }] }],
    ['a var with a fallback', { '==': [{ var: ['context.region', 'eu'] }, 'eu'] }],
    ['a numeric var path', { '==': [{ var: 0 }, 1] }],
    ['the whole data', { '!!': { var: '' } }],
    ['a var naming the data itself', { '!!': { var: null } }],
    ['an array operation over items', { some: [{ var: 'context.items' }, { '>': [{ var: 'price' }, 10] }] }],
    ['a literal value as operand', { '!!': [true] }],
    ['a name that merely contains a forbidden word', { '!!': { var: 'context.constructors.__proto__x' } }],
  ])('accepts %s', (_, conditions) => {
    expect(() => assertValidConditions(conditions)).not.toThrow();
  });

  it('rejects an unknown operator, including JSON Logic ones left out on purpose', () => {
    const error = rejection({ foo: [1, 2] });
    expect(error.code).toBe('validation_error');
    expect(error.status).toBe(400);
    expect(error.message).toBe('Invalid conditions: conditions: unknown operator "foo"');
    expect(error.details).toEqual({ fields: [{ field: 'conditions', message: 'conditions: unknown operator "foo"' }] });
    expect(rejection({ method: [{ var: 'context.name' }, 'toUpperCase'] }).message).toContain('unknown operator "method"');
  });

  it('rejects an object holding more or fewer than one operator', () => {
    expect(rejection({ '==': [1, 1], '!=': [1, 2] }).message).toBe(
      'Invalid conditions: conditions: an object must hold exactly one operator',
    );
    expect(rejection({}).message).toBe('Invalid conditions: conditions: an object must hold exactly one operator');
  });

  it.each([
    ['null', null],
    ['an array', [{ '==': [1, 1] }]],
    ['a string', '{"==": [1, 1]}'],
    ['a number', 1],
    ['a boolean', true],
  ])('rejects %s at the top level', (_, conditions) => {
    expect(rejection(conditions).message).toBe('Invalid conditions: must be a JSON Logic expression object');
  });

  it.each(['__proto__', 'constructor', 'prototype', 'context.constructor', 'agent.__proto__.polluted', 'request.x.prototype'])(
    'rejects the var path "%s"',
    (path) => {
      expect(rejection({ '!!': { var: path } }).message).toBe(
        'Invalid conditions: conditions.!!.var: the path may not name __proto__, constructor or prototype',
      );
    },
  );

  it('rejects a forbidden var path given in array form', () => {
    expect(rejection({ '!!': { var: ['context.constructor', null] } }).message).toContain('may not name');
  });

  it('rejects computed var paths', () => {
    expect(rejection({ var: { cat: ['__pro', 'to__'] } }).message).toBe(
      'Invalid conditions: conditions.var: the path must be a literal string or number',
    );
    expect(rejection({ '!!': { var: [{ cat: ['con', 'structor'] }, 0] } }).message).toContain('must be a literal');
  });

  it('rejects forbidden paths inside nested operations and fallbacks', () => {
    expect(rejection({ and: [{ '==': [1, 1] }, { or: [false, { '==': [{ var: 'context.__proto__' }, 1] }] }] }).message).toBe(
      'Invalid conditions: conditions.and[1].or[1].==[0].var: the path may not name __proto__, constructor or prototype',
    );
    expect(rejection({ '!!': { var: ['context.a', { var: 'prototype' }] } }).message).toContain('may not name');
    expect(rejection({ if: [true, { bogus: 1 }, 0] }).message).toContain('unknown operator "bogus"');
  });

  // Nodes are JSON values: {"cat": [...]} is the operator object, its array, and each literal.
  const catOf = (literals: number) => ({ cat: Array.from({ length: literals }, () => 'x') });

  it('accepts an expression of 1 000 nodes', () => {
    expect(() => assertValidConditions(catOf(998))).not.toThrow();
  });

  it('rejects an expression of 1 001 nodes, naming the field', () => {
    const error = rejection(catOf(999));
    expect(error.status).toBe(400);
    expect(error.code).toBe('validation_error');
    const message = 'conditions: the expression has more than 1000 nodes (operators, arrays and values)';
    expect(error.message).toBe(`Invalid conditions: ${message}`);
    expect(error.details).toEqual({ fields: [{ field: 'conditions', message }] });
  });

  it('counts nodes at every depth, var paths and fallbacks included', () => {
    const leaf = { '==': [{ var: ['context.a', 0] }, 1] }; // 7 nodes
    const wide = (n: number) => ({ and: Array.from({ length: n }, () => leaf) }); // 2 + 7n nodes
    expect(() => assertValidConditions(wide(142))).not.toThrow(); // 996
    expect(rejection(wide(143)).message).toContain('more than 1000 nodes'); // 1003
  });

  it('names the field it was given', () => {
    expect(rejection({ foo: 1 }, 'rules[0].conditions').message).toBe(
      'Invalid rules[0].conditions: rules[0].conditions: unknown operator "foo"',
    );
  });
});

describe('conditionsHold', () => {
  const data = { context: { amount: 500, tags: ['urgent'], empty: [] }, agent: { environment: 'prod' }, request: {} };

  it('holds when the expression is truthy and not when it is falsy', () => {
    expect(conditionsHold({ '>': [{ var: 'context.amount' }, 100] }, data)).toBe(true);
    expect(conditionsHold({ '>': [{ var: 'context.amount' }, 1000] }, data)).toBe(false);
    expect(conditionsHold({ in: ['urgent', { var: 'context.tags' }] }, data)).toBe(true);
    expect(conditionsHold({ '==': [{ var: 'agent.environment' }, 'dev'] }, data)).toBe(false);
  });

  it('follows JSON Logic truthiness, in which an empty array is false', () => {
    expect(conditionsHold({ var: 'context.amount' }, data)).toBe(true);
    expect(conditionsHold({ var: 'context.tags' }, data)).toBe(true);
    expect(conditionsHold({ var: 'context.empty' }, data)).toBe(false);
    expect(conditionsHold({ var: 'context.missing' }, data)).toBe(false);
    expect(conditionsHold({ cat: ['0'] }, data)).toBe(true);
    expect(conditionsHold({ cat: [''] }, data)).toBe(false);
    expect(conditionsHold({ '+': [0] }, data)).toBe(false);
  });

  it('never calls a method named in the data', () => {
    expect(conditionsHold({ in: ['a', { var: 'context.list' }] }, { context: { list: { indexOf: 1 } } })).toBe(false);
    expect(conditionsHold({ cat: [{ var: 'context.x' }] }, { context: { x: { toString: 1 } } })).toBe(true);
    expect(conditionsHold({ var: 'context.name.toUpperCase' }, { context: { name: 'a' } })).toBe(false);
  });

  it('throws, rather than answering false, when the expression cannot be evaluated', () => {
    expect(() => conditionsHold({ '*': [] }, data)).toThrow('"*" needs at least one operand');
    expect(() => conditionsHold({ missing_some: [1, null] }, data)).toThrow('"missing_some" needs a list of keys');
  });

  it('spends from the budget it is given, and throws once it is spent', () => {
    const budget = new ConditionBudget();
    const items = { context: { items: Array.from({ length: 1_500 }, (_, i) => i) } };
    const scan = { some: [{ var: 'context.items' }, { '<': [{ var: '' }, 0] }] }; // about 4 500 operations
    expect(holdsWithin(scan, items, budget)).toBe(false);
    expect(holdsWithin(scan, items, budget)).toBe(false);
    expect(() => holdsWithin(scan, items, budget)).toThrow(ConditionBudgetExceeded);
  });
});

describe('readsContext', () => {
  it.each([
    ['a context path', { '>': [{ var: 'context.amount' }, 1] }, true],
    ['the context itself', { '!!': { var: 'context' } }, true],
    ['the whole data', { '!!': { var: '' } }, true],
    ['the data as null', { '!!': { var: null } }, true],
    ['a numeric path', { '==': [{ var: 0 }, 1] }, true],
    ['a context fallback', { '==': [{ var: ['agent.team', { var: 'context.team' }] }, 'a'] }, true],
    ['an item field', { some: [{ var: 'agent.metadata.tags' }, { '==': [{ var: '' }, 'x'] }] }, true],
    ['missing', { missing: ['agent.team'] }, true],
    ['missing_some', { missing_some: [1, ['agent.team', 'request.operation']] }, true],
    ['a sum over the context', { '>': [{ recent_sum: ['context.amount', '1h'] }, 10] }, true],
    ['a count of distinct context values', { '>': [{ recent_distinct: ['context.host', '1h'] }, 10] }, true],
    [
      'agent and request paths only',
      { and: [{ '==': [{ var: 'agent.environment' }, 'prod'] }, { '==': [{ var: 'request.operation' }, 'read'] }] },
      false,
    ],
    ['an agent path with a literal fallback', { '==': [{ var: ['agent.team', 'none'] }, 'a'] }, false],
    ['a count', { '>': [{ recent_count: ['1h', { decision: 'deny' }] }, 10] }, false],
    ['a count of distinct scopes', { '>': [{ recent_distinct: ['resource_scope', '1h'] }, 10] }, false],
    ['literals only', { '==': [1, 1] }, false],
  ])('%s: %s', (_, conditions, expected) => {
    assertValidConditions(conditions);
    expect(readsContext(conditions)).toBe(expected);
  });

  // What it says no to must decide alike under any context: that is what lets the context go unread.
  it('never says no to an expression whose value depends on the context', () => {
    const paths = [
      'agent.environment',
      'agent.metadata.tags',
      'agent.team',
      'request.operation',
      'context.amount',
      'context.tags',
      '',
      'price',
    ];
    const expression = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom(1, 'prod', 'read', 'x', true, null),
        fc.record({ var: fc.oneof(fc.constantFrom(...paths), fc.tuple(fc.constantFrom(...paths), tie('node'))) }),
        fc.record({ '==': fc.tuple(tie('node'), tie('node')) }),
        fc.record({ '>': fc.tuple(tie('node'), tie('node')) }),
        fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ '!': tie('node') }),
        fc.record({ if: fc.tuple(tie('node'), tie('node'), tie('node')) }),
        fc.record({ cat: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) }),
        fc.record({ in: fc.tuple(tie('node'), tie('node')) }),
        fc.record({ some: fc.tuple(tie('node'), tie('node')) }),
        fc.record({ map: fc.tuple(tie('node'), tie('node')) }),
        fc.record({ missing: fc.array(fc.constantFrom(...paths), { maxLength: 2 }) }),
      ),
    })).node;
    const contexts = [{}, { amount: 5, tags: ['x', 'prod'] }, { amount: 'read', tags: 'prod', price: 2 }];
    const data = (context: object) => ({
      context,
      agent: { environment: 'prod', metadata: { tags: ['x', 'y'] } },
      request: { operation: 'read' },
    });
    const outcome = (conditions: object, context: object) => {
      try {
        return conditionsHold(conditions, data(context));
      } catch (error) {
        return (error as Error).message;
      }
    };
    fc.assert(
      fc.property(fc.record({ '!!': expression }), (conditions) => {
        fc.pre(!readsContext(conditions));
        const [first, ...others] = contexts.map((context) => outcome(conditions, context));
        for (const other of others) expect(other).toEqual(first);
      }),
      { numRuns: 2_000 },
    );
  });
});
