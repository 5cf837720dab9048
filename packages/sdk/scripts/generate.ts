import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** The committed contract, which a test holds equal to what the service serves. */
export const CONTRACT_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

/** The API's types, generated from the contract: the SDK's, and the dashboard's through it. */
export const GENERATED_TYPES_FILE = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

const HEADER = '// Generated from docs/openapi.json by `npm run contract:write`. Do not edit.\n\n';

interface Contract {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
}

/** The operations that declare `Idempotency-Key`, as `POST /api/v1/evaluate`. */
function idempotentOperations(contract: Contract): string[] {
  return Object.entries(contract.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) =>
        operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key'),
      )
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
}

/** The types of the committed contract, and the operations that take an idempotency key, as the file holds them. */
export async function generatedTypesSource(): Promise<string> {
  const contract = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8'));
  // biome-ignore lint/suspicious/noExplicitAny: openapi-typescript takes the parsed document as it comes.
  const types = astToString(await openapiTS(contract as any));
  const idempotent = JSON.stringify(idempotentOperations(contract), null, 2);
  return `${HEADER}${types}\n/** The operations that take an \`Idempotency-Key\`: the client sends one per call, and repeats it on retries. */\nexport const IDEMPOTENT_OPERATIONS: readonly string[] = ${idempotent};\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  writeFileSync(GENERATED_TYPES_FILE, await generatedTypesSource());
