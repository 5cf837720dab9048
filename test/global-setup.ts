import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { CHROMIUM } from './chromium.js';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '@agov/db';

/**
 * One fresh, migrated PostgreSQL database per test run, shared by the test files (each test
 * signs up its own tenant), and a migrated template from which a file that runs background
 * jobs — which act on every tenant — copies a database of its own. All are dropped at the end.
 */
const serverUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    serverUrl: string;
    templateDatabase: string;
  }
}

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The built service, as `npm start` runs it (the embedded smoke test and the browser tests
 * start it), and Debian's Chromium for the browser tests, installed when missing.
 */
function prepareBuiltService() {
  execFileSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
  if (!existsSync(CHROMIUM)) {
    const apt = (...args: string[]) =>
      execFileSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    apt('update');
    apt('install', '-y', '--no-install-recommends', 'chromium');
  }
}

export default async function setup(project: TestProject) {
  prepareBuiltService();
  const run = `agov_test_${Date.now()}_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const urlOf = (name: string) => Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

  const template = `${run}_template`;
  await admin.unsafe(`create database ${template}`);
  const database = await openDatabase({ databaseUrl: urlOf(template), databasePoolSize: 2, dataDir: '' });
  await database.migrate();
  await database.close();
  await admin.unsafe(`create database ${run} template ${template}`);

  project.provide('databaseUrl', urlOf(run));
  project.provide('serverUrl', serverUrl);
  project.provide('templateDatabase', template);

  return async () => {
    const created = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`${run}%`}`;
    // Copies first: the template cannot go while databases are being made from it.
    for (const { datname } of created.sort((a, b) => (a.datname === template ? 1 : b.datname === template ? -1 : 0))) {
      await admin.unsafe(`drop database if exists ${datname} with (force)`);
    }
    await admin.end();
  };
}
