import type { Config } from '@agov/config';
import { pino, type DestinationStream, type Logger } from 'pino';

/** Anything that could carry a credential, wherever it appears in a log line. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-chat-signature"]',
  'req.headers["x-slack-signature"]',
  'req.headers["stripe-signature"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.key',
  '*.secret',
  '*.token',
  '*.app_secret',
  '*.bot_token',
  '*.databaseUrl',
  '*.redisUrl',
];

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino(
    { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { err: serializeError } },
    destination,
  );
}

/** A PostgreSQL error as postgres.js (`PostgresError`) or PGlite (`DatabaseError`) raises it. */
interface PgError extends Error {
  code: string;
  severity: string;
  constraint_name?: string;
  table_name?: string;
  column_name?: string;
  constraint?: string;
  table?: string;
  column?: string;
}

const isPgError = (value: unknown): value is PgError =>
  value instanceof Error && typeof (value as PgError).code === 'string' && typeof (value as PgError).severity === 'string';

/** Drizzle's `DrizzleQueryError`: its message and fields hold the statement and every parameter. */
const isQueryError = (value: unknown): value is Error & { query: string; params: unknown } =>
  value instanceof Error && typeof (value as { query?: unknown }).query === 'string' && 'params' in value;

const isDatabaseError = (value: unknown): value is Error => isPgError(value) || isQueryError(value);

/**
 * The `err` serializer. A database error can carry credentials: Drizzle's message and fields
 * hold the failed statement with its parameters, and PostgreSQL's `detail` (and some messages)
 * quote the offending values. Such an error is logged as its class, SQLSTATE, constraint,
 * table and column, with a message whose quoted text is kept only where it names one of
 * those; no stack (Drizzle's starts with the message). Other errors get pino's usual
 * serializer, except that a database error among their causes is reduced the same way.
 */
export function serializeError(error: unknown): unknown {
  if (isDatabaseError(error)) return databaseError(error);
  if (!(error instanceof Error)) return pino.stdSerializers.err(error as Error);
  const cause = causes(error).find(isDatabaseError);
  if (!cause) return pino.stdSerializers.err(error);
  return { type: error.constructor.name, message: error.message, stack: error.stack, cause: databaseError(cause) };
}

function databaseError(error: Error) {
  const pg = [error, ...causes(error)].find(isPgError);
  const driver = isQueryError(error) ? (error as { cause?: unknown }).cause : error;
  const code = pg?.code ?? (driver as { code?: unknown } | undefined)?.code;
  const fields = {
    code: typeof code === 'string' ? code : undefined,
    constraint: pg?.constraint_name ?? pg?.constraint,
    table: pg?.table_name ?? pg?.table,
    column: pg?.column_name ?? pg?.column,
  };
  const names = new Set(Object.values(fields).filter((value) => value !== undefined));
  const message = (pg ?? (driver instanceof Error && !isQueryError(driver) ? driver : null))?.message ?? 'Failed query';
  return {
    type: error.constructor.name,
    message: message.replace(/"([^"]*)"/g, (quoted, inner: string) => (names.has(inner) ? quoted : '"…"')),
    ...fields,
  };
}

function causes(error: Error): unknown[] {
  const found: unknown[] = [];
  for (let current: unknown = error.cause; current && found.length < 5; current = (current as { cause?: unknown }).cause) {
    found.push(current);
  }
  return found;
}
