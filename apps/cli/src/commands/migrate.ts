import { parseArgs } from 'node:util';
import { EXIT, parse, type Command } from '../command.js';

export const migrate: Command = {
  name: 'migrate',
  summary: 'apply the database migrations the service needs',
  help: `Usage: agov migrate

Applies every committed migration the database has not applied yet, as the service does at
start-up (MIGRATE_ON_START) and npm run db:migrate does. Safe to run again; on a PostgreSQL
server an advisory lock serialises it with other processes migrating at the same time. An
embedded data directory belongs to one process: stop the service first.

Options:
  -h, --help   show this help

Environment:
  DATABASE_URL   the PostgreSQL server to migrate; unset: embedded PostgreSQL in DATA_DIR
  DATA_DIR       where embedded PostgreSQL keeps its files (default ./.data)
  and the service's other settings (README, Configuration), read and checked as it reads them

Exit status:
  0  migrated, or nothing to apply
  1  the database could not be opened or a migration failed
  2  bad usage or configuration`,

  async run({ argv, env, out }) {
    parse(() => parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true }), { min: 0, max: 0 });
    // The database drivers load only now: help and usage errors answer at once.
    const { describeDatabase, openServiceDatabase } = await import('../database.js');
    const { pendingMigrations } = await import('@agov/db');
    const { config, database } = await openServiceDatabase(env);
    try {
      const pending = await pendingMigrations(database);
      await database.migrate();
      out(
        pending === 0
          ? `${describeDatabase(config)} is up to date: no migrations to apply`
          : `applied ${pending} migrations to ${describeDatabase(config)}`,
      );
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};
