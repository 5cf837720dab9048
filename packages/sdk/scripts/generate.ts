import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '@agov/api';
import { loadConfig } from '@agov/config';
import { createLogger, createRuntime } from '@agov/runtime';

/** The SDK's types, generated from the service's own OpenAPI document. */
export const GENERATED_TYPES_FILE = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

const HEADER = "// Generated from the service's /openapi.json by `npm run generate -w @agov/sdk`. Do not edit.\n\n";

export async function generatedTypesSource(document: unknown): Promise<string> {
  // biome-ignore lint/suspicious/noExplicitAny: openapi-typescript takes the parsed document as it comes.
  return HEADER + astToString(await openapiTS(document as any));
}

/** Starts the service on a throwaway embedded database just long enough to read its document. */
async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'agov-sdk-types-'));
  try {
    const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    const logger = createLogger(config);
    const runtime = await createRuntime(config, { logger });
    const app = await buildApp(runtime, logger);
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    writeFileSync(GENERATED_TYPES_FILE, await generatedTypesSource(document));
    await app.close();
    await runtime.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
