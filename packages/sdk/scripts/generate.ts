import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** The committed contract, which a test holds equal to what the service serves. */
export const CONTRACT_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

/** The API's types, generated from the contract: the SDK's, and the dashboard's through it. */
export const GENERATED_TYPES_FILE = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

const HEADER = '// Generated from docs/openapi.json by `npm run contract:write`. Do not edit.\n\n';

/** The types of the committed contract, as the file holds them. */
export async function generatedTypesSource(): Promise<string> {
  // biome-ignore lint/suspicious/noExplicitAny: openapi-typescript takes the parsed document as it comes.
  return HEADER + astToString(await openapiTS(JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as any));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  writeFileSync(GENERATED_TYPES_FILE, await generatedTypesSource());
