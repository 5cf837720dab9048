/** SQLSTATE 57014: PostgreSQL cancelled the statement (past `DATABASE_STATEMENT_TIMEOUT_MS`). */
const QUERY_CANCELED = '57014';

/** Whether the database cancelled a statement that ran past its time limit. */
export const isStatementTimeout = (error: unknown): boolean => findPgError(error)?.code === QUERY_CANCELED;

/** Whether a driver error is PostgreSQL's unique violation, optionally on one named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const cause = findPgError(error);
  return cause?.code === '23505' && (constraint === undefined || cause.constraint_name === constraint || cause.constraint === constraint);
}

/**
 * A statement under way this long is taken to wait on a connection to a database that has not
 * answered (it was restarting), not on its work, which takes milliseconds: it no longer holds
 * back the next one (the clock's shared read, evaluate's group commit).
 */
export const OVERDUE_STATEMENT_MS = 100;

/**
 * Whether a driver error says the database cannot be reached or is not taking work now, as
 * opposed to a query it refused: the connection refused, cut, timed out or closed (by a
 * shutdown, a crash or a failover), a server starting up or shutting down (SQLSTATE class 08,
 * 57P01–57P03), out of connections (53300), or read-only because it is, or just became, a
 * standby (25006). Trying again later may succeed; the API answers 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = findPgError(error)?.code;
  if (code === undefined) return false;
  return UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P');
}

const UNAVAILABLE_CODES = new Set([
  // postgres.js's own connection errors.
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // The socket's.
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  // PostgreSQL's: too many connections, read-only transaction.
  '53300',
  '25006',
]);

interface PgError {
  code?: string;
  constraint_name?: string;
  constraint?: string;
}

/**
 * The first error in the `cause` chain that carries a code: the driver's, with PostgreSQL's
 * SQLSTATE (or the driver's own connection code), as Drizzle wraps it. postgres.js names the
 * constraint field constraint_name, PGlite constraint.
 */
function findPgError(error: unknown): PgError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (typeof current === 'object' && 'code' in current && typeof (current as PgError).code === 'string') {
      return current as PgError;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
