import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfig } from '@agov/config';
import { createLogger, createRuntime } from '@agov/runtime';
import { buildApp } from '../src/app.js';

/** The committed contract, which Redocly and Spectral lint and the SDK generates its types from. */
export const CONTRACT_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

/** The document as the file holds it. */
export const contractText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

/** Starts the service on a throwaway embedded database just long enough to read its document. */
async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'agov-contract-'));
  try {
    const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    const logger = createLogger(config);
    const runtime = await createRuntime(config, { logger });
    const app = await buildApp(runtime, logger);
    await app.ready();
    writeFileSync(CONTRACT_FILE, contractText(app.swagger()));
    await app.close();
    await runtime.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
