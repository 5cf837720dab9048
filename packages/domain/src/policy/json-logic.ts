import { type ConditionBudget, ConditionBudgetExceeded } from './condition-budget.js';
import { HISTORY_OPERATORS, historyTerm, type HistoryKind } from './history-operators.js';

/**
 * A JSON Logic evaluator (jsonlogic.com, with json-logic-js's semantics) for exactly the
 * operators conditions.ts accepts, run under a ConditionBudget. json-logic-js cannot be
 * bounded from outside: its operators allocate (`merge`, `map`, string conversion) before
 * any hook could run. Here every operator application and every array element visited or
 * produced is counted, and sizes are checked before the array or text is built.
 *
 * Where it departs from json-logic-js, on purpose: it never calls a method found in the
 * data (JSON such as `{"indexOf": 1}` or `{"toString": 1}` is just data), `var` reads own
 * properties only, and values from the data are never evaluated again as logic.
 */

type Logic = Record<string, unknown>;
type Operation = (args: unknown[], data: unknown, budget: ConditionBudget) => unknown;
/** Operators that decide which of their operands to evaluate, and against which data. */
type Control = (operands: unknown[], data: unknown, budget: ConditionBudget) => unknown;

/** Arrays nested deeper than this are not turned into text (the JSON bodies themselves stop at 32). */
const MAX_TEXT_DEPTH = 100;

/** JSON Logic truthiness: as JavaScript, except that an empty array is false. */
export function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** Evaluates a (validated) expression against `data`; throws ConditionBudgetExceeded or an Error. */
export function applyLogic(logic: unknown, data: unknown, budget: ConditionBudget): unknown {
  if (Array.isArray(logic)) {
    budget.items(logic.length);
    return logic.map((item) => applyLogic(item, data, budget));
  }
  if (!isLogic(logic)) return logic;
  budget.spend();
  const operator = Object.keys(logic)[0]!;
  const operand = logic[operator];
  const operands = Array.isArray(operand) ? operand : [operand];
  const control = CONTROLS.get(operator);
  if (control) return control(operands, data, budget);
  const operation = OPERATIONS.get(operator);
  if (!operation) throw new Error(`unknown operator "${operator}"`);
  return operation(
    operands.map((item) => applyLogic(item, data, budget)),
    data,
    budget,
  );
}

const isLogic = (value: unknown): value is Logic =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1;

// --- Coercions, as JavaScript does them, with the text they build counted ---

/** `String(value)` for JSON values: arrays join their items (null and undefined as ""), objects are "[object Object]". */
function toText(value: unknown, budget: ConditionBudget, depth = 0): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    if (depth >= MAX_TEXT_DEPTH) throw new ConditionBudgetExceeded(`budget exceeded: arrays nested more than ${MAX_TEXT_DEPTH} deep`);
    budget.spend(value.length);
    const parts = value.map((item) => (item === null || item === undefined ? '' : toText(item, budget, depth + 1)));
    budget.text(parts.reduce((sum, part) => sum + part.length, Math.max(0, parts.length - 1)));
    return parts.join(',');
  }
  if (typeof value === 'object' && value !== null) return '[object Object]';
  return String(value);
}

/** What JavaScript compares or computes with: objects become their text, primitives stay. */
const primitive = (value: unknown, budget: ConditionBudget): unknown =>
  typeof value === 'object' && value !== null ? toText(value, budget) : value;

const isObject = (value: unknown) => typeof value === 'object' && value !== null;

/** JavaScript's `==`: objects by identity with each other, by their text with primitives. */
function looseEquals(a: unknown, b: unknown, budget: ConditionBudget): boolean {
  if (isObject(a) && isObject(b)) return a === b;
  if (isObject(a) || isObject(b)) {
    if (a === null || a === undefined || b === null || b === undefined) return false;
  }
  // biome-ignore lint/suspicious/noDoubleEquals: JSON Logic's == is JavaScript's loose equality.
  return primitive(a, budget) == primitive(b, budget);
}

/** Relational and arithmetic operators see primitives; JavaScript's own operators do the rest. */
const num = (value: unknown, budget: ConditionBudget) => primitive(value, budget) as number;
const float = (value: unknown, budget: ConditionBudget) => Number.parseFloat(toText(value, budget));

// --- Data access ---

/** `{"var": [name, fallback]}`: a dotted path of own properties; the whole data for "" or null. */
function lookup(data: unknown, name: unknown, fallback: unknown, budget: ConditionBudget): unknown {
  const notFound = fallback === undefined ? null : fallback;
  if (name === undefined || name === null || name === '') return data;
  const path = typeof name === 'string' ? name : toText(name, budget);
  let value = data;
  let start = 0;
  for (;;) {
    budget.spend();
    const end = path.indexOf('.', start);
    if (value === null || value === undefined) return notFound;
    value = ownProperty(value, end === -1 ? path.slice(start) : path.slice(start, end));
    if (value === undefined) return notFound;
    if (end === -1) return value;
    start = end + 1;
  }
}

function ownProperty(value: unknown, key: string): unknown {
  const holder = Object(value) as Record<string, unknown>;
  return Object.hasOwn(holder, key) ? holder[key] : undefined;
}

/** `missing`: the keys whose value is null, "" or absent; one array argument is the list of keys. */
function missingKeys(args: unknown[], data: unknown, budget: ConditionBudget): unknown[] {
  const keys = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  budget.items(keys.length);
  return keys.filter((key) => {
    const value = Array.isArray(key) ? lookup(data, key[0], key[1], budget) : lookup(data, key, undefined, budget);
    return value === null || value === '';
  });
}

// --- Operators ---

const OPERATIONS = new Map<string, Operation>([
  ['==', ([a, b], _, budget) => looseEquals(a, b, budget)],
  ['===', ([a, b]) => a === b],
  ['!=', ([a, b], _, budget) => !looseEquals(a, b, budget)],
  ['!==', ([a, b]) => a !== b],
  ['>', ([a, b], _, budget) => num(a, budget) > num(b, budget)],
  ['>=', ([a, b], _, budget) => num(a, budget) >= num(b, budget)],
  [
    '<',
    ([a, b, c], _, budget) =>
      c === undefined ? num(a, budget) < num(b, budget) : num(a, budget) < num(b, budget) && num(b, budget) < num(c, budget),
  ],
  [
    '<=',
    ([a, b, c], _, budget) =>
      c === undefined ? num(a, budget) <= num(b, budget) : num(a, budget) <= num(b, budget) && num(b, budget) <= num(c, budget),
  ],
  ['!!', ([a]) => truthy(a)],
  ['!', ([a]) => !truthy(a)],
  ['%', ([a, b], _, budget) => num(a, budget) % num(b, budget)],
  ['in', ([a, b], _, budget) => contains(b, a, budget)],
  ['cat', (args, _, budget) => concatenate(args, budget)],
  ['substr', ([source, start, end], _, budget) => substring(toText(source, budget), primitive(start, budget), primitive(end, budget))],
  ['+', (args, _, budget) => args.reduce<unknown>((sum, value) => float(sum, budget) + float(value, budget), 0)],
  ['*', (args, _, budget) => multiply(args, budget)],
  ['-', ([a, b], _, budget) => (b === undefined ? -num(a, budget) : num(a, budget) - num(b, budget))],
  ['/', ([a, b], _, budget) => num(a, budget) / num(b, budget)],
  ['min', (args, _, budget) => Math.min(...args.map((value) => num(value, budget)))],
  ['max', (args, _, budget) => Math.max(...args.map((value) => num(value, budget)))],
  ['merge', (args, _, budget) => merge(args, budget)],
  ['var', ([name, fallback], data, budget) => lookup(data, name, fallback, budget)],
  ['missing', (args, data, budget) => missingKeys(args, data, budget)],
  ['missing_some', ([need, options], data, budget) => missingSome(need, options, data, budget)],
]);

function contains(haystack: unknown, needle: unknown, budget: ConditionBudget): boolean {
  if (!haystack) return false;
  if (typeof haystack === 'string') {
    const text = toText(needle, budget);
    budget.text(haystack.length);
    return haystack.includes(text);
  }
  if (Array.isArray(haystack)) {
    budget.spend(haystack.length);
    return haystack.indexOf(needle) !== -1;
  }
  return false;
}

function concatenate(args: unknown[], budget: ConditionBudget): string {
  const parts = args.map((value) => (value === null || value === undefined ? '' : toText(value, budget)));
  budget.text(parts.reduce((sum, part) => sum + part.length, 0));
  return parts.join('');
}

/** `substr` as String.prototype.substr, with a negative length counting back from the end (as PHP). */
function substring(text: string, start: unknown, end: unknown): string {
  if ((end as number) < 0) {
    const rest = substr(text, start, undefined);
    // JavaScript's `+`, as json-logic-js: a string `end` concatenates, and the length then reads as 0.
    return substr(rest, 0, (rest.length as number) + (end as number));
  }
  return substr(text, start, end);
}

/** String.prototype.substr, kept out of sight of the deprecation of its name. */
const substr = (text: string, start: unknown, length: unknown): string =>
  (String.prototype as unknown as { substr(this: string, start: unknown, length: unknown): string }).substr.call(text, start, length);

function multiply(args: unknown[], budget: ConditionBudget): unknown {
  if (args.length === 0) throw new Error('"*" needs at least one operand');
  return args.slice(1).reduce<unknown>((product, value) => float(product, budget) * float(value, budget), args[0]);
}

function merge(args: unknown[], budget: ConditionBudget): unknown[] {
  budget.items(args.reduce<number>((sum, value) => sum + (Array.isArray(value) ? value.length : 1), 0));
  const merged: unknown[] = [];
  for (const value of args) {
    if (Array.isArray(value)) for (const item of value) merged.push(item);
    else merged.push(value);
  }
  return merged;
}

function missingSome(need: unknown, options: unknown, data: unknown, budget: ConditionBudget): unknown[] {
  if (options === null || options === undefined) throw new Error('"missing_some" needs a list of keys');
  const missing = missingKeys(Array.isArray(options) ? options : [options], data, budget);
  const count = typeof options === 'string' || Array.isArray(options) ? options.length : Number.NaN;
  return count - missing.length >= num(need, budget) ? [] : missing;
}

// --- Control: conditionals, short-circuit logic, and the array operators that switch the data ---

/** The array an array operator walks (its first operand, evaluated), or null when that is not an array. */
function scoped(operands: unknown[], data: unknown, budget: ConditionBudget): unknown[] | null {
  const items = applyLogic(operands[0], data, budget);
  return Array.isArray(items) ? items : null;
}

const CONTROLS = new Map<string, Control>([
  ['if', conditional],
  ['?:', conditional],
  [
    'and',
    (operands, data, budget) => {
      let current: unknown;
      for (const operand of operands) {
        current = applyLogic(operand, data, budget);
        if (!truthy(current)) return current;
      }
      return current;
    },
  ],
  [
    'or',
    (operands, data, budget) => {
      let current: unknown;
      for (const operand of operands) {
        current = applyLogic(operand, data, budget);
        if (truthy(current)) return current;
      }
      return current;
    },
  ],
  [
    'filter',
    (operands, data, budget) => {
      const items = scoped(operands, data, budget);
      const kept: unknown[] = [];
      for (const item of items ?? []) {
        budget.spend();
        if (truthy(applyLogic(operands[1], item, budget))) {
          budget.spend();
          kept.push(item);
        }
      }
      return kept;
    },
  ],
  [
    'map',
    (operands, data, budget) => {
      const items = scoped(operands, data, budget) ?? [];
      budget.items(items.length);
      const mapped: unknown[] = [];
      for (const item of items) {
        budget.spend();
        mapped.push(applyLogic(operands[1], item, budget));
      }
      return mapped;
    },
  ],
  [
    'reduce',
    (operands, data, budget) => {
      const items = scoped(operands, data, budget);
      let accumulator = operands[2] === undefined ? null : applyLogic(operands[2], data, budget);
      for (const current of items ?? []) {
        budget.spend();
        accumulator = applyLogic(operands[1], { current, accumulator }, budget);
      }
      return accumulator;
    },
  ],
  ...HISTORY_OPERATORS.map((kind): [string, Control] => [kind, (operands, _, budget) => historyValue(kind, operands, budget)]),
  ['all', (operands, data, budget) => quantify(operands, data, budget, { onEmpty: false, stopOn: false, onStop: false })],
  ['none', (operands, data, budget) => quantify(operands, data, budget, { onEmpty: true, stopOn: true, onStop: false })],
  ['some', (operands, data, budget) => quantify(operands, data, budget, { onEmpty: false, stopOn: true, onStop: true })],
]);

/** A history operator's value, as fetched before deciding; none (the counters could not answer) fails the condition. */
function historyValue(kind: HistoryKind, operands: unknown[], budget: ConditionBudget): number {
  const term = historyTerm(kind, operands);
  if ('problem' in term) throw new Error(`"${kind}" ${term.problem}`);
  const value = budget.history.get(term.key);
  if (value === undefined) throw new Error(`"${kind}": the agent's recent evaluations could not be read`);
  return value;
}

function conditional(operands: unknown[], data: unknown, budget: ConditionBudget): unknown {
  let i = 0;
  for (; i < operands.length - 1; i += 2) {
    if (truthy(applyLogic(operands[i], data, budget))) return applyLogic(operands[i + 1], data, budget);
  }
  return operands.length === i + 1 ? applyLogic(operands[i], data, budget) : null;
}

interface Quantifier {
  /** The answer for an empty or non-array operand: all of nothing is false, none of nothing true. */
  onEmpty: boolean;
  /** The item truthiness that ends the loop, and the answer then; running out answers the opposite. */
  stopOn: boolean;
  onStop: boolean;
}

/** all / none / some. */
function quantify(operands: unknown[], data: unknown, budget: ConditionBudget, { onEmpty, stopOn, onStop }: Quantifier): boolean {
  const items = scoped(operands, data, budget);
  if (!items || items.length === 0) return onEmpty;
  for (const item of items) {
    budget.spend();
    if (truthy(applyLogic(operands[1], item, budget)) === stopOn) return onStop;
  }
  return !onStop;
}
