/**
 * Configuration is read from the environment exactly once, validated, and frozen.
 * Nothing else in the project reads `process.env`.
 */
export type Mode = 'production' | 'development' | 'test';

export interface Config {
  readonly mode: Mode;
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  /** postgres:// URL of a PostgreSQL server; null selects embedded PostgreSQL (PGlite). */
  readonly databaseUrl: string | null;
  /** Connections to PostgreSQL per process; at least 2, as migrations hold one for their lock. */
  readonly databasePoolSize: number;
  /** Where embedded PostgreSQL keeps its files. */
  readonly dataDir: string;
  readonly migrateOnStart: boolean;
  /** redis:// URL for BullMQ and shared counters; null runs jobs in-process. */
  readonly redisUrl: string | null;
  readonly sessionTtlMs: number;
  /** Most rows one export may hold (traces for the bulk CSV, events for the audit export). */
  readonly exportMaxRows: number;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const mode = oneOf(env, 'NODE_ENV', ['production', 'development', 'test'], 'production');
  return Object.freeze({
    mode,
    host: text(env, 'HOST', '127.0.0.1'),
    port: integer(env, 'PORT', 4000, { min: 0, max: 65_535 }),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, { min: 2, max: 1_000 }),
    dataDir: text(env, 'DATA_DIR', './.data'),
    migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    sessionTtlMs: integer(env, 'SESSION_TTL_HOURS', 168, { min: 1, max: 8_760 }) * 3_600_000,
    exportMaxRows: integer(env, 'EXPORT_MAX_ROWS', 100_000, { min: 1, max: 10_000_000 }),
  });
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function text(env: Env, name: string, fallback: string): string {
  return raw(env, name) ?? fallback;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function integer(env: Env, name: string, fallback: number, range: { min: number; max: number }): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^-?\d+$/.test(value) || parsed < range.min || parsed > range.max) {
    throw new ConfigError(name, `must be a whole number from ${range.min} to ${range.max} (got "${value}")`);
  }
  return parsed;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const value = raw(env, name);
  if (value === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    // The value may hold a password: never echo it.
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return value;
}

/** A connection URL fit for logs: the password is masked. */
export function redactUrl(value: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '***';
  }
}
