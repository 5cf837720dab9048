import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '@agov/db';

/**
 * One fresh PostgreSQL database per test run, migrated once and dropped at the end. Tests
 * isolate themselves by tenant, so files can share it.
 */
const serverUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const name = `agov_test_${Date.now()}_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();

  const database = await openDatabase({ databaseUrl, databasePoolSize: 2, dataDir: '' });
  await database.migrate();
  await database.close();
  project.provide('databaseUrl', databaseUrl);

  return async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
}
