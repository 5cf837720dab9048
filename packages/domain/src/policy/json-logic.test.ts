import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { describe, expect, it } from 'vitest';
import { CONDITION_LIMITS, ConditionBudget, ConditionBudgetExceeded } from './condition-budget.js';
import { OPERATORS } from './conditions.js';
import { historyTerm, isHistoryOperator, type HistoryTerm } from './history-operators.js';
import { applyLogic, truthy } from './json-logic.js';

const data = {
  context: {
    amount: 500,
    zero: 0,
    text: 'hello world',
    tags: ['urgent', 'eu'],
    empty: [],
    nothing: null,
    blank: '',
    nested: { a: { b: 7 } },
  },
  agent: { environment: 'prod', autonomy_tier: 'high' },
  request: { operation: 'refund', resource_scope: 'refunds/42' },
  items: [
    { price: 5, qty: 2 },
    { price: 15, qty: 1 },
    { price: 25, qty: 0 },
  ],
  numbers: [1, 2, 3, 4],
};

/** Expressions on which our evaluator must answer exactly what json-logic-js answers. */
const PARITY: [string, unknown][] = [
  ['== loose', { '==': [1, '1'] }],
  ['== array and string', { '==': [{ var: 'context.tags' }, 'urgent,eu'] }],
  ['== empty array and false', { '==': [[], false] }],
  ['== null and 0', { '==': [null, 0] }],
  ['===', { '===': [1, '1'] }],
  ['!=', { '!=': [{ var: 'agent.environment' }, 'dev'] }],
  ['!==', { '!==': [1, 1] }],
  ['>', { '>': [{ var: 'context.amount' }, 100] }],
  ['> strings', { '>': ['b', 'a'] }],
  ['>=', { '>=': ['500', { var: 'context.amount' }] }],
  ['<', { '<': [1, 2] }],
  ['< between', { '<': [1, { var: 'context.amount' }, 1000] }],
  ['<= between', { '<=': [500, { var: 'context.amount' }, 500] }],
  ['!! of an empty array', { '!!': [[]] }],
  ['!! of "0"', { '!!': ['0'] }],
  ['! of zero', { '!': { var: 'context.zero' } }],
  ['%', { '%': [10, 3] }],
  ['in a string', { in: ['world', { var: 'context.text' }] }],
  ['in an array', { in: ['eu', { var: 'context.tags' }] }],
  ['in an empty string', { in: ['', ''] }],
  ['in a number', { in: [1, 123] }],
  ['cat', { cat: ['a', 1, null, true, [1, [2, null]]] }],
  ['substr from', { substr: ['jsonlogic', 4] }],
  ['substr negative start', { substr: ['jsonlogic', -5] }],
  ['substr with length', { substr: ['jsonlogic', 1, 3] }],
  ['substr negative length', { substr: ['jsonlogic', 0, -5] }],
  ['substr string length', { substr: ['jsonlogic', 0, '-2'] }],
  ['+ sums', { '+': [1, '2', 3.5] }],
  ['+ unary cast', { '+': '3.14' }],
  ['+ of nothing', { '+': [] }],
  ['+ of null', { '+': [null] }],
  ['*', { '*': [2, '3', 4] }],
  ['* of one keeps it', { '*': ['3'] }],
  ['- binary', { '-': [10, '4'] }],
  ['- unary', { '-': '2' }],
  ['/', { '/': [1, 4] }],
  ['min', { min: [3, 1, '2'] }],
  ['max of nothing', { max: [] }],
  ['merge flattens one level', { merge: [1, [2, [3]], [], { var: 'context.tags' }] }],
  ['var dotted', { var: 'context.nested.a.b' }],
  ['var default', { var: ['context.absent', 'fallback'] }],
  ['var null value is not missing', { var: ['context.nothing', 'fallback'] }],
  ['var through a string', { var: 'context.text.length' }],
  ['var array index', { var: 'context.tags.1' }],
  ['var everything', { '!!': { var: '' } }],
  ['missing', { missing: ['context.amount', 'context.absent', 'context.blank', 'context.nothing'] }],
  ['missing from an array argument', { missing: { merge: ['context.absent', 'agent.environment'] } }],
  ['missing_some enough', { missing_some: [1, ['context.amount', 'context.absent']] }],
  ['missing_some too few', { missing_some: [2, ['context.amount', 'context.absent']] }],
  ['if chain', { if: [{ '>': [{ var: 'context.amount' }, 1000] }, 'big', { '>': [{ var: 'context.amount' }, 100] }, 'medium', 'small'] }],
  ['if without else', { if: [false, 'x'] }],
  ['if of one', { if: ['only'] }],
  ['?:', { '?:': [{ var: 'context.empty' }, 'yes', 'no'] }],
  ['and returns the first falsy', { and: [1, '', 2] }],
  ['and returns the last', { and: [1, 'a', [1]] }],
  ['or returns the first truthy', { or: [0, [], 'x', 'y'] }],
  ['or returns the last', { or: [0, null] }],
  ['filter', { filter: [{ var: 'items' }, { '>': [{ var: 'price' }, 10] }] }],
  ['filter of a non-array', { filter: [{ var: 'context.amount' }, true] }],
  ['map', { map: [{ var: 'numbers' }, { '*': [{ var: '' }, 2] }] }],
  ['map of a non-array', { map: [null, 1] }],
  [
    'reduce',
    { reduce: [{ var: 'items' }, { '+': [{ var: 'accumulator' }, { '*': [{ var: 'current.price' }, { var: 'current.qty' }] }] }, 0] },
  ],
  ['reduce without initial', { reduce: [{ var: 'numbers' }, { var: 'current' }] }],
  ['reduce of a non-array', { reduce: ['x', { var: 'current' }, 7] }],
  ['all', { all: [{ var: 'numbers' }, { '>': [{ var: '' }, 0] }] }],
  ['all of an empty array', { all: [[], true] }],
  ['none', { none: [{ var: 'items' }, { '>': [{ var: 'price' }, 100] }] }],
  ['none of an empty array', { none: [[], true] }],
  ['some', { some: [{ var: 'context.tags' }, { '==': [{ var: '' }, 'eu'] }] }],
  ['some of an empty array', { some: [{ var: 'context.empty' }, true] }],
  ['nested array operators', { some: [{ var: 'items' }, { all: [{ merge: [{ var: 'price' }] }, { '<': [{ var: '' }, 20] }] }] }],
];

describe('applyLogic', () => {
  it.each(PARITY)('answers as json-logic-js: %s', (_, logic) => {
    const expected = jsonLogic.apply(logic as RulesLogic, data);
    expect(applyLogic(logic, data, new ConditionBudget())).toEqual(expected);
  });

  it('the parity table covers every JSON Logic operator conditions may use (the history operators are ours)', () => {
    const used = new Set<string>();
    const collect = (node: unknown) => {
      if (typeof node !== 'object' || node === null) return;
      if (!Array.isArray(node)) used.add(Object.keys(node)[0]!);
      for (const child of Object.values(node)) collect(child);
    };
    for (const [, logic] of PARITY) collect(logic);
    expect([...OPERATORS].filter((operator) => !used.has(operator) && !isHistoryOperator(operator))).toEqual([]);
  });

  it('reads a history operator from the values fetched for the decision, and fails without them', () => {
    const term = historyTerm('recent_sum', ['context.amount', '1h', { resource_scope: 'refunds/*', operation: 'refund' }]) as HistoryTerm;
    const sameTerm = { recent_sum: ['context.amount', '60m', { operation: 'refund', resource_scope: 'refunds/*' }] };
    expect(applyLogic({ '>': [sameTerm, 100] }, data, new ConditionBudget(new Map([[term.key, 150]])))).toBe(true);
    expect(() => applyLogic(sameTerm, data, new ConditionBudget())).toThrow(
      '"recent_sum": the agent\'s recent evaluations could not be read',
    );
  });

  it('follows JSON Logic truthiness', () => {
    for (const value of [[], 0, '', null, undefined, false, Number.NaN]) expect(truthy(value)).toBe(false);
    for (const value of [[0], '0', 'false', 1, -1, {}, true]) expect(truthy(value)).toBe(true);
  });

  it('reads own properties only', () => {
    expect(applyLogic({ var: 'context.toString' }, data, new ConditionBudget())).toBeNull();
    expect(applyLogic({ missing: ['context.hasOwnProperty'] }, data, new ConditionBudget())).toEqual(['context.hasOwnProperty']);
  });
});

/** Runs `logic`, expecting the budget to stop it; answers the error and how long it took. */
function exhausted(logic: unknown, on: unknown = data) {
  const started = performance.now();
  let caught: unknown;
  try {
    applyLogic(logic, on, new ConditionBudget());
  } catch (error) {
    caught = error;
  }
  const ms = performance.now() - started;
  expect(caught).toBeInstanceOf(ConditionBudgetExceeded);
  return { error: caught as ConditionBudgetExceeded, ms };
}

// The budget stops these within a few milliseconds (the doubling reduce in about 5); unbounded,
// they take seconds and gigabytes. The doubling reduce must stop within 50 ms; the others, which
// first walk a 64 KiB array, get a generous 200 ms so a loaded CI machine does not flake.
const QUICKLY_MS = 200;
const ones = (n: number) => Array.from({ length: n }, () => 1);
// 64 KiB of JSON: "1," per item.
const contextArray = ones(32 * 1024);

describe('the budget', () => {
  it('stops a reduce that doubles an array at every step, before building it', () => {
    const doubling = { reduce: [ones(40), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] };
    const { error, ms } = exhausted(doubling);
    expect(error.message).toBe(`budget exceeded: more than ${CONDITION_LIMITS.operations} operations`);
    expect(ms).toBeLessThan(50);
  });

  it('refuses to build an array longer than the limit, before building it', () => {
    const { error } = exhausted({ merge: [{ var: 'context.items' }, { var: 'context.items' }] }, { context: { items: ones(6_000) } });
    expect(error.message).toBe(`budget exceeded: an array of 12000 items (at most ${CONDITION_LIMITS.arrayItems})`);
  });

  it('stops nested some inside map over a 64 KiB context array', () => {
    const rows = Array.from({ length: 128 }, () => ones(256));
    const nested = { map: [{ var: 'context.rows' }, { some: [{ var: '' }, { '==': [{ var: '' }, 2] }] }] };
    expect(exhausted(nested, { context: { rows } }).ms).toBeLessThan(QUICKLY_MS);
    const flat = { map: [{ var: 'context.items' }, { some: [{ merge: [{ var: '' }] }, { '==': [{ var: '' }, 2] }] }] };
    expect(exhausted(flat, { context: { items: contextArray } }).ms).toBeLessThan(QUICKLY_MS);
  });

  it('stops a quadratic scan of the whole context array at every step', () => {
    const items = { var: 'context.items' };
    const quadratic = {
      reduce: [items, { if: [{ some: [{ var: 'accumulator' }, { '==': [{ var: '' }, 2] }] }, [], { var: 'accumulator' }] }, items],
    };
    expect(exhausted(quadratic, { context: { items: contextArray } }).ms).toBeLessThan(QUICKLY_MS);
  });

  it('stops text that doubles at every step', () => {
    const doubling = { reduce: [ones(40), { cat: [{ var: 'accumulator' }, { var: 'accumulator' }] }, 'xxxxxxxxxxxxxxxx'] };
    const { error, ms } = exhausted(doubling);
    expect(error.message).toBe(`budget exceeded: more than ${CONDITION_LIMITS.characters} characters of text`);
    expect(ms).toBeLessThan(QUICKLY_MS);
  });

  it('stops turning deeply nested arrays into text', () => {
    const nesting = { cat: [{ reduce: [ones(200), [{ var: 'accumulator' }], 1] }] };
    expect(exhausted(nesting).error.message).toBe('budget exceeded: arrays nested more than 100 deep');
  });

  it('leaves ordinary conditions far inside the budget', () => {
    const budget = new ConditionBudget();
    for (const [, logic] of PARITY) applyLogic(logic, data, budget);
    expect(() => budget.spend(CONDITION_LIMITS.operations / 2)).not.toThrow();
  });
});
