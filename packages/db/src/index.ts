export * from './schema/index.js';
export { migrationsFolder, openDatabase, type Database, type Db, type Executor, type Tx } from './client.js';
export { jsonRows } from './json-rows.js';
export { pendingMigrations } from './migration-state.js';
