import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, expect, inject } from 'vitest';
import { type Database, migrationsFolder, openDatabase } from '../src/index.js';

/**
 * For tests of a migration that rewrites stored rows: databases migrated up to just before it,
 * on the PostgreSQL server and embedded, where a test stores rows as they were, then runs the
 * remaining migrations and reads what they made of them. Everything is removed after the file.
 */
export function beforeMigration(tagSuffix: string) {
  const scratch = mkdtempSync(join(tmpdir(), `agov-migration-${tagSuffix}-`));
  const server = inject('serverUrl');
  const serverDatabase = `${inject('databaseUrl').split('/').pop()}_${tagSuffix}_${process.pid}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  afterAll(async () => {
    await admin.unsafe(`drop database if exists ${serverDatabase} with (force)`);
    await admin.end();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A copy of the committed migrations without the one under test and any after it. */
  function migrationsBefore(): string {
    const folder = join(scratch, 'before');
    const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
    const at = journal.entries.findIndex((entry) => entry.tag.endsWith(`_${tagSuffix}`));
    expect(at).toBeGreaterThan(0);
    const entries = journal.entries.slice(0, at);
    mkdirSync(join(folder, 'meta'), { recursive: true });
    writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }));
    for (const { tag } of entries) copyFileSync(join(migrationsFolder, `${tag}.sql`), join(folder, `${tag}.sql`));
    return folder;
  }

  async function migratedBefore(open: () => Promise<Database>): Promise<Database> {
    const database = await open();
    const migrate = database.driver === 'pglite' ? migratePglite : migratePostgres;
    await migrate(database.db as never, { migrationsFolder: migrationsBefore() });
    return database;
  }

  const databases = {
    postgres: () =>
      migratedBefore(async () => {
        await admin.unsafe(`create database ${serverDatabase}`);
        const databaseUrl = Object.assign(new URL(server), { pathname: `/${serverDatabase}` }).toString();
        return openDatabase({ databaseUrl, databasePoolSize: 2, dataDir: '' });
      }),
    embedded: () => migratedBefore(() => openDatabase({ databaseUrl: '', databasePoolSize: 1, dataDir: join(scratch, 'embedded') })),
  };
  return Object.entries(databases);
}
