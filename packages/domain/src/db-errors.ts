/** Whether a driver error is PostgreSQL's unique violation, optionally on one named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const cause = findPgError(error);
  return cause?.code === '23505' && (constraint === undefined || cause.constraint_name === constraint || cause.constraint === constraint);
}

interface PgError {
  code?: string;
  constraint_name?: string;
  constraint?: string;
}

// Drizzle wraps driver errors; postgres.js names the field constraint_name, PGlite constraint.
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
