import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvChunks, jsonArrayChunks, type Cell } from './formats.js';

/** Pages as the exports produce them: an async sequence of row arrays. */
async function* pagesOf<Row>(...pages: Row[][]): AsyncGenerator<Row[]> {
  for (const page of pages) yield page;
}

async function collect(chunks: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

const COLUMNS = ['name', 'value'] as const;
type Row = Record<(typeof COLUMNS)[number], Cell>;

/** The CSV text for rows of the two test columns. */
const csv = async (...pages: Row[][]) => (await collect(csvChunks(COLUMNS, pagesOf(...pages)))).join('');

/** The one data record of a CSV with a header, as the real parser reads it. */
const onlyValue = async (value: Cell) => {
  const records = parse(await csv([{ name: 'x', value }])) as string[][];
  expect(records).toHaveLength(2);
  return records[1]![1];
};

describe('csvChunks', () => {
  it('writes the header in the columns given, then each row in that column order, every record ending CRLF', async () => {
    const text = await csv([{ value: 'b', name: 'a' }], [{ name: 'c', value: 'd' }]);
    expect(text).toBe('name,value\r\na,b\r\nc,d\r\n');
  });

  it('writes only the header when there are no rows, and skips empty pages', async () => {
    expect(await csv()).toBe('name,value\r\n');
    expect(await csv([], [])).toBe('name,value\r\n');
    expect(await csv([], [{ name: 'a', value: 'b' }], [])).toBe('name,value\r\na,b\r\n');
  });

  it('yields the header first and then one chunk per non-empty page, so the body streams', async () => {
    const chunks = await collect(
      csvChunks(
        COLUMNS,
        pagesOf(
          [{ name: 'a', value: 1 }],
          [],
          [
            { name: 'b', value: 2 },
            { name: 'c', value: 3 },
          ],
        ),
      ),
    );
    expect(chunks).toEqual(['name,value\r\n', 'a,1\r\n', 'b,2\r\nc,3\r\n']);
  });

  it.each([
    ['a comma', 'a,b', '"a,b"'],
    ['a double quote', 'say "hi"', '"say ""hi"""'],
    ['a line feed', 'line1\nline2', '"line1\nline2"'],
    ['a carriage return', 'line1\rline2', '"line1\rline2"'],
    ['CRLF', 'line1\r\nline2', '"line1\r\nline2"'],
  ])('quotes a value holding %s per RFC 4180', async (_label, value, quoted) => {
    expect(await csv([{ name: 'x', value }])).toBe(`name,value\r\nx,${quoted}\r\n`);
    expect(await onlyValue(value)).toBe(value);
  });

  it('leaves plain text unquoted', async () => {
    expect(await csv([{ name: "O'Brien", value: 'semi;colon and spaces' }])).toBe("name,value\r\nO'Brien,semi;colon and spaces\r\n");
  });

  it.each([
    ['=', '=SUM(A1:A2)'],
    ['+', '+1+1'],
    ['-', '-2+3'],
    ['@', '@SUM(A1)'],
    ['tab', '\tcmd'],
    ['CR', '\rcmd'],
  ])('prefixes a text cell starting with %s with an apostrophe', async (_label, value) => {
    expect(await onlyValue(value)).toBe(`'${value}`);
  });

  it('quotes a prefixed formula cell that also holds quotes and commas', async () => {
    const value = '=HYPERLINK("http://x.test","click, here")';
    expect(await csv([{ name: 'x', value }])).toBe(`name,value\r\nx,"'=HYPERLINK(""http://x.test"",""click, here"")"\r\n`);
    expect(await onlyValue(value)).toBe(`'${value}`);
  });

  it('does not prefix a formula character that is not the first one', async () => {
    for (const value of ['a=b', 'x+1', 'repo-1', 'me@example.test', 'a\tb', ' =1']) expect(await onlyValue(value)).toBe(value);
  });

  it('writes numbers as they are, but a negative number starts with "-" and is prefixed like any such cell', async () => {
    expect(await csv([{ name: 0, value: 42 }], [{ name: 3.5, value: 1_234_567 }])).toBe('name,value\r\n0,42\r\n3.5,1234567\r\n');
    expect(await onlyValue(-5)).toBe("'-5");
  });

  it('writes null as an empty cell and booleans as true/false', async () => {
    expect(await csv([{ name: null, value: null }], [{ name: true, value: false }], [{ name: null, value: 'x' }])).toBe(
      'name,value\r\n,\r\ntrue,false\r\n,x\r\n',
    );
  });

  it('keeps non-ASCII text as it is', async () => {
    expect(await onlyValue('ünïcode ✓ 日本')).toBe('ünïcode ✓ 日本');
  });

  it('produces a file the real parser reads back into the original rows', async () => {
    const rows: Row[] = [
      { name: 'plain', value: 'text' },
      { name: 'tricky', value: '"quoted", with comma\r\nand a new line' },
      { name: 'formula', value: '@cmd' },
      { name: 'empty', value: null },
      { name: 'number', value: 7 },
    ];
    const records = parse(await csv(rows.slice(0, 2), rows.slice(2)), { columns: true }) as Record<string, string>[];
    expect(records).toEqual([
      { name: 'plain', value: 'text' },
      { name: 'tricky', value: '"quoted", with comma\r\nand a new line' },
      { name: 'formula', value: "'@cmd" },
      { name: 'empty', value: '' },
      { name: 'number', value: '7' },
    ]);
  });
});

describe('jsonArrayChunks', () => {
  const json = async (...pages: unknown[][]) => (await collect(jsonArrayChunks(pagesOf(...pages)))).join('');

  it('writes [] when there are no rows, also for empty pages', async () => {
    expect(await json()).toBe('[]');
    expect(await json([], [])).toBe('[]');
  });

  it('joins the rows of every page into one array, with no stray commas around empty pages', async () => {
    const text = await json([], [{ a: 1 }, { a: 2 }], [], [{ a: 3 }], []);
    expect(text).toBe('[{"a":1},{"a":2},{"a":3}]');
    expect(JSON.parse(text)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });

  it('yields the opening bracket, one chunk per non-empty page, then the closing bracket', async () => {
    expect(await collect(jsonArrayChunks(pagesOf([{ a: 1 }], [], [{ a: 2 }, { a: 3 }])))).toEqual([
      '[',
      '{"a":1}',
      ',{"a":2},{"a":3}',
      ']',
    ]);
  });

  it('keeps values exactly, key order included, with no CSV escaping', async () => {
    const row = { event_id: 'e', description: '=1+1, "quoted"\nnext ]', status: null, count: -3, ok: true };
    const text = await json([row]);
    expect(JSON.parse(text)).toEqual([row]);
    expect(Object.keys(JSON.parse(text)[0])).toEqual(Object.keys(row));
  });
});
