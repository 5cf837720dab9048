import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrationsFolder, type Database } from './client.js';

/**
 * How many of the committed migrations the database has not applied yet (all of them on an
 * empty database). Drizzle's migrator applies every migration created after the newest one it
 * recorded in `drizzle.__drizzle_migrations`; this counts the same way, so a tool can refuse
 * to write to a schema older than its code.
 */
export async function pendingMigrations(database: Database): Promise<number> {
  const committed = readMigrationFiles({ migrationsFolder });
  const [table] = await database.rows<{ present: boolean }>(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!table?.present) return committed.length;
  const [newest] = await database.rows<{ created_at: string | number | null }>(
    sql`select max(created_at) as created_at from drizzle.__drizzle_migrations`,
  );
  const appliedUntil = newest?.created_at === null || newest?.created_at === undefined ? -1 : Number(newest.created_at);
  return committed.filter((migration) => migration.folderMillis > appliedUntil).length;
}
