import { loadConfig, type Config } from '@agov/config';
import { openDatabase, pendingMigrations, type Database } from '@agov/db';
import { Refusal } from './command.js';

/** Which database a command works on, in words that never show a password. */
export const describeDatabase = (config: Config) =>
  config.databaseUrl ? 'the PostgreSQL database of DATABASE_URL' : `embedded PostgreSQL in ${config.dataDir}`;

/**
 * The service's database, from the service's configuration (`DATABASE_URL`, or embedded
 * PostgreSQL in `DATA_DIR`). A bad setting throws the config's own error (exit 2); a
 * database that cannot be opened is a Refusal naming it.
 */
export async function openServiceDatabase(env: NodeJS.ProcessEnv): Promise<{ config: Config; database: Database }> {
  const config = loadConfig(env);
  try {
    return { config, database: await openDatabase(config) };
  } catch (error) {
    throw new Refusal(`cannot open ${describeDatabase(config)}: ${(error as Error).message}`);
  }
}

/** Writing to a schema older than the code would fail halfway or worse: refuse up front. */
export async function requireMigrated(config: Config, database: Database): Promise<void> {
  const pending = await pendingMigrations(database);
  if (pending > 0) {
    throw new Refusal(`${describeDatabase(config)} is not migrated (${pending} migrations pending): run \`agov migrate\` first`);
  }
}
