import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, sql } from 'drizzle-orm';
import { bigint, boolean, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, jsonRows, openDatabase } from '../src/index.js';

/** Every type the evaluation's tables write through `jsonRows`, nullable where they are. */
const probe = pgTable(`json_rows_probe_${process.pid}`, {
  id: uuid('id').primaryKey(),
  position: integer('position').notNull(),
  label: text('label'),
  seq: bigint('seq', { mode: 'number' }),
  flag: boolean('flag'),
  at: timestamp('at', { withTimezone: true, precision: 3 }),
  payload: jsonb('payload'),
});
type ProbeRow = typeof probe.$inferSelect;

/** One instant shared by rows that are not next to each other, as an evaluation's rows share theirs. */
const shared = new Date('2026-11-28T23:59:59.123Z');

const rows: ProbeRow[] = [
  {
    id: '00000000-0000-4000-8000-000000000001',
    position: 1,
    label: 'quotes " and \\ backslash, tab\t, newline\n, é, 🙂, and a NUL-free \u0001',
    seq: 9_007_199_254_740_991,
    flag: true,
    at: shared,
    payload: { nested: [1, 'two', null, { deep: true }], text: 'null' },
  },
  { id: '00000000-0000-4000-8000-000000000002', position: 2, label: null, seq: null, flag: null, at: null, payload: null },
  {
    id: '00000000-0000-4000-8000-000000000003',
    position: 3,
    label: '',
    seq: 0,
    flag: false,
    at: new Date('1970-01-01T00:00:00.000Z'),
    payload: [],
  },
  { id: '00000000-0000-4000-8000-000000000004', position: 4, label: 'null', seq: -1, flag: false, at: null, payload: 'a string' },
  { id: '00000000-0000-4000-8000-000000000005', position: 5, label: 'x', seq: 5, flag: true, at: shared, payload: {} },
  {
    id: '00000000-0000-4000-8000-000000000006',
    position: 6,
    label: 'y',
    seq: 6,
    flag: true,
    at: new Date('2001-02-03T04:05:06.789Z'),
    payload: {},
  },
  { id: '00000000-0000-4000-8000-000000000007', position: 7, label: 'z', seq: 7, flag: true, at: shared, payload: {} },
];

const probeJson = jsonRows(probe);

/**
 * Rows written from one JSON parameter read back exactly as the same rows inserted by Drizzle:
 * every type, every character, and NULL (not a JSON null) where a value is null.
 */
describe.each([
  ['PostgreSQL', () => ({ databaseUrl: inject('databaseUrl'), databasePoolSize: 1, dataDir: '' })],
  ['embedded', () => ({ databaseUrl: '', databasePoolSize: 1, dataDir: mkdtempSync(join(tmpdir(), 'agov-json-rows-')) })],
])('rows written from JSON on %s', (_, config) => {
  let database: Database;
  let dataDir = '';
  beforeAll(async () => {
    const settings = config();
    dataDir = settings.dataDir;
    database = await openDatabase(settings);
    await database.rows(sql`create table ${probe} (id uuid primary key, position integer not null, label text, seq bigint,
      flag boolean, at timestamp (3) with time zone, payload jsonb)`);
  });
  afterAll(async () => {
    await database.rows(sql`drop table ${probe}`);
    await database.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('read back as Drizzle writes them', async () => {
    await database.prepared(probeJson.insert('$1'), [probeJson.encode(rows)]);
    const written = await database.db.select().from(probe).orderBy(asc(probe.position));
    const nulls = await database.rows<{ position: number; payload_is_null: boolean }>(
      sql`select position, payload is null as payload_is_null from ${probe} order by position`,
    );

    await database.rows(sql`delete from ${probe}`);
    await database.db.insert(probe).values(rows);
    const inserted = await database.db.select().from(probe).orderBy(asc(probe.position));

    expect(written).toEqual(rows);
    expect(written).toEqual(inserted);
    expect(nulls.map((row) => row.payload_is_null)).toEqual([false, true, false, false, false, false, false]);
  });

  it('writes nothing from an empty array', async () => {
    await database.rows(sql`delete from ${probe}`);
    await database.prepared(probeJson.insert('$1'), [probeJson.encode([])]);
    expect(await database.db.select().from(probe)).toEqual([]);
  });
});
