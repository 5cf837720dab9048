/**
 * Configuration is read from the environment exactly once, validated, and frozen.
 * Nothing else in the project reads `process.env`.
 */
export type Mode = 'production' | 'development';

export interface Config {
  readonly mode: Mode;
  readonly host: string;
  readonly port: number;
  /**
   * How many processes serve the API on `port`, behind one that supervises them (node:cluster):
   * 1 serves from this process alone. More needs a PostgreSQL server and Redis, which they share.
   */
  readonly apiProcesses: number;
  /**
   * Longest a client may take to send one request, headers and body; the response is not
   * limited by it, so a long export still streams to the end.
   */
  readonly requestTimeoutMs: number;
  readonly logLevel: string;
  /** postgres:// URL of a PostgreSQL server; null selects embedded PostgreSQL (PGlite). */
  readonly databaseUrl: string | null;
  /** Connections to PostgreSQL per process; at least 2, as migrations hold one for their lock. */
  readonly databasePoolSize: number;
  /**
   * Longest one database statement may run before PostgreSQL cancels it. Embedded PostgreSQL
   * (PGlite) does not enforce it.
   */
  readonly databaseStatementTimeoutMs: number;
  /**
   * Longest one attempt to connect to PostgreSQL may take; while the database cannot be
   * reached, requests that need it answer 503 within about this long.
   */
  readonly databaseConnectTimeoutMs: number;
  /** Where embedded PostgreSQL keeps its files. */
  readonly dataDir: string;
  readonly migrateOnStart: boolean;
  /** redis:// URL for BullMQ and shared counters; null runs jobs in-process. */
  readonly redisUrl: string | null;
  readonly sessionTtlMs: number;
  /** Most rows one export may hold (traces for the bulk CSV, events for the audit export). */
  readonly exportMaxRows: number;
  /** Most recorded evaluations one policy simulation may re-decide; more is 413. */
  readonly simulateMaxEvaluations: number;
  /** Prefix of every BullMQ key in Redis, so several deployments (or test runs) can share one server. */
  readonly queuePrefix: string;
  /** Delays before the 2nd, 3rd, … attempt of a webhook delivery; attempts = delays + 1. */
  readonly webhookRetryDelaysMs: readonly number[];
  readonly webhookTimeoutMs: number;
  /** How often `audit.batch` may fire per tenant. */
  readonly auditBatchIntervalMs: number;
  /** How often a sweep expires approvals past `expires_at`, behind each one's own scheduled expiry. */
  readonly approvalExpirySweepMs: number;
  /** How often the outbox relay looks for due effects when it last found none. */
  readonly outboxPollMs: number;
  /**
   * How long a claimed effect may stay unfinished before the relay hands it out again (a worker
   * that died mid-job); queue locks are derived from it.
   */
  readonly outboxLeaseMs: number;
  /** Port of the internal Prometheus endpoint (`GET /metrics`); null = off. */
  readonly metricsPort: number | null;
  /** The base URL people open (links in e-mails and chat cards), without a trailing slash. */
  readonly publicUrl: string;
  /** smtp:// or smtps:// URL of the mail server; null = e-mail is not sent. */
  readonly smtpUrl: string | null;
  readonly smtpFrom: string;
  /** Base URL of Slack's Web API, without a trailing slash. */
  readonly slackApiUrl: string;
  readonly stripe: {
    /** null = checkout and portal answer 501 `billing_not_configured`. */
    readonly secretKey: string | null;
    /** null = the billing webhook accepts nothing. */
    readonly webhookSecret: string | null;
    readonly priceStarter: string | null;
    readonly priceBusiness: string | null;
    /** Where the Stripe SDK sends its calls; null = Stripe itself. */
    readonly apiUrl: string | null;
  };
  /**
   * Which proxies' `X-Forwarded-For` to believe, in Fastify's `trustProxy` terms: false (none,
   * the default), true (any), a hop count, or a list of addresses and CIDR ranges.
   */
  readonly trustProxy: boolean | number | readonly string[];
  /**
   * AES-256 keys of the secrets stored in the database (webhook signing secrets, chat app secret,
   * bot token and incoming-webhook URL). `key` seals and opens; `previousKey` only opens, during a
   * rotation. A null `key` means: a key file in `dataDir`, except in production on a PostgreSQL
   * server, where secrets cannot be stored without one.
   */
  readonly secrets: {
    readonly key: Buffer | null;
    readonly previousKey: Buffer | null;
  };
  readonly rateLimits: {
    /** Per tenant per minute; null = the tenant's plan decides. */
    readonly evaluate: number | null;
    readonly read: number | null;
    readonly write: number | null;
    /** Per client IP per minute, for requests without valid credentials. */
    readonly unauthenticated: number;
    /** Per client IP per minute, for the chat callback, counted apart (Slack calls from few addresses for every tenant). */
    readonly chatCallback: number;
  };
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const mode = oneOf(env, 'NODE_ENV', ['production', 'development'], 'production');
  return Object.freeze({
    mode,
    host: text(env, 'HOST', '127.0.0.1'),
    port: integer(env, 'PORT', 4000, { min: 0, max: 65_535 }),
    apiProcesses: apiProcesses(env),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, { min: 100, max: 3_600_000 }),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    databaseUrl: databaseUrl(env, 'DATABASE_URL'),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, { min: 2, max: 1_000 }),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15_000, { min: 100, max: 3_600_000 }),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 3_000, { min: 100, max: 60_000 }),
    dataDir: text(env, 'DATA_DIR', './.data'),
    migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    sessionTtlMs: integer(env, 'SESSION_TTL_HOURS', 168, { min: 1, max: 8_760 }) * 3_600_000,
    exportMaxRows: integer(env, 'EXPORT_MAX_ROWS', 100_000, { min: 1, max: 10_000_000 }),
    simulateMaxEvaluations: integer(env, 'SIMULATE_MAX_EVALUATIONS', 1_000_000, { min: 1, max: 1_000_000 }),
    queuePrefix: token(env, 'QUEUE_PREFIX', 'agov'),
    webhookRetryDelaysMs: Object.freeze(
      integers(env, 'WEBHOOK_RETRY_DELAYS_MS', [60_000, 300_000, 1_800_000, 7_200_000], { min: 0, max: 604_800_000 }),
    ),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, { min: 1, max: 120_000 }),
    auditBatchIntervalMs: integer(env, 'AUDIT_BATCH_INTERVAL_MS', 300_000, { min: 100, max: 86_400_000 }),
    approvalExpirySweepMs: integer(env, 'APPROVAL_EXPIRY_SWEEP_MS', 30_000, { min: 100, max: 86_400_000 }),
    outboxPollMs: integer(env, 'OUTBOX_POLL_MS', 250, { min: 10, max: 60_000 }),
    outboxLeaseMs: integer(env, 'OUTBOX_LEASE_MS', 60_000, { min: 1_000, max: 86_400_000 }),
    metricsPort: optionalInteger(env, 'METRICS_PORT', { min: 0, max: 65_535 }),
    publicUrl: (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? 'http://127.0.0.1:4000').replace(/\/+$/, ''),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: text(env, 'SMTP_FROM', 'Agent Governance <no-reply@localhost>'),
    slackApiUrl: (url(env, 'SLACK_API_URL', ['http:', 'https:']) ?? 'https://slack.com/api').replace(/\/+$/, ''),
    stripe: Object.freeze({
      secretKey: raw(env, 'STRIPE_SECRET_KEY') ?? null,
      webhookSecret: raw(env, 'STRIPE_WEBHOOK_SECRET') ?? null,
      priceStarter: raw(env, 'STRIPE_PRICE_STARTER') ?? null,
      priceBusiness: raw(env, 'STRIPE_PRICE_BUSINESS') ?? null,
      apiUrl: url(env, 'STRIPE_API_URL', ['http:', 'https:']),
    }),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    secrets: secretKeys(env),
    rateLimits: Object.freeze({
      evaluate: optionalInteger(env, 'RATE_LIMIT_EVALUATE', { min: 1, max: 100_000_000 }),
      read: optionalInteger(env, 'RATE_LIMIT_READ', { min: 1, max: 100_000_000 }),
      write: optionalInteger(env, 'RATE_LIMIT_WRITE', { min: 1, max: 100_000_000 }),
      unauthenticated: integer(env, 'RATE_LIMIT_UNAUTHENTICATED', 30, { min: 1, max: 100_000_000 }),
      chatCallback: integer(env, 'RATE_LIMIT_CHAT_CALLBACK', 600, { min: 1, max: 100_000_000 }),
    }),
  });
}

/**
 * Several API processes share what each would otherwise keep alone: embedded PostgreSQL belongs
 * to the one process that opened it, and without Redis every process would count rate limits
 * and run effects by itself.
 */
function apiProcesses(env: Env): number {
  const count = integer(env, 'API_PROCESSES', 1, { min: 1, max: 64 });
  if (count === 1) return count;
  if (raw(env, 'DATABASE_URL') === undefined) {
    throw new ConfigError('API_PROCESSES', 'above 1 needs DATABASE_URL: embedded PostgreSQL belongs to one process');
  }
  if (raw(env, 'REDIS_URL') === undefined) {
    throw new ConfigError(
      'API_PROCESSES',
      'above 1 needs REDIS_URL: the processes share its rate-limit counters and leave effects to the worker',
    );
  }
  return count;
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function text(env: Env, name: string, fallback: string): string {
  return raw(env, name) ?? fallback;
}

/** A name safe inside Redis keys: letters, digits, `-`, `_`, `.`. */
function token(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback);
  if (!/^[\w.-]{1,64}$/.test(value)) throw new ConfigError(name, `must be 1 to 64 letters, digits, '-', '_' or '.' (got "${value}")`);
  return value;
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

function optionalInteger(env: Env, name: string, range: { min: number; max: number }): number | null {
  return raw(env, name) === undefined ? null : integer(env, name, 0, range);
}

/** A comma-separated list of whole numbers, at least one. */
function integers(env: Env, name: string, fallback: number[], range: { min: number; max: number }): number[] {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d+$/.test(part) || Number(part) < range.min || Number(part) > range.max)) {
    throw new ConfigError(name, `must be comma-separated whole numbers from ${range.min} to ${range.max} (got "${value}")`);
  }
  return parts.map(Number);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

/** `true`, `false`, a hop count, or comma-separated addresses and CIDR ranges. */
function trustProxy(env: Env, name: string): boolean | number | readonly string[] {
  const value = raw(env, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return integer(env, name, 0, { min: 1, max: 100 });
  const addresses = value.split(',').map((part) => part.trim());
  if (addresses.some((address) => !/^[\da-fA-F.:]+(\/\d{1,3})?$/.test(address))) {
    throw new ConfigError(name, `must be true, false, a hop count, or comma-separated addresses or CIDR ranges (got "${value}")`);
  }
  return Object.freeze(addresses);
}

/** How to make a value `SECRETS_KEY` accepts, for every message that asks for one. */
export const SECRETS_KEY_HOWTO = 'generate one with `openssl rand -base64 32`';

function secretKeys(env: Env): Config['secrets'] {
  const key = secretKey(env, 'SECRETS_KEY');
  const previousKey = secretKey(env, 'SECRETS_KEY_PREVIOUS');
  if (previousKey && !key) {
    throw new ConfigError('SECRETS_KEY_PREVIOUS', 'is set without SECRETS_KEY: the previous key only reads, and the current one writes');
  }
  return Object.freeze({ key, previousKey });
}

/** Base64 of exactly 32 bytes, written canonically (padding optional). */
function secretKey(env: Env, name: string): Buffer | null {
  const value = raw(env, name);
  if (value === undefined) return null;
  const bytes = Buffer.from(value, 'base64');
  // Node skips what is not base64; comparing the round trip refuses such a value instead.
  if (bytes.length !== 32 || bytes.toString('base64').replace(/=+$/, '') !== value.replace(/=+$/, '')) {
    // The value is a key, or most of one: never echo it.
    throw new ConfigError(name, `must be base64 of exactly 32 bytes (${SECRETS_KEY_HOWTO})`);
  }
  return bytes;
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

/**
 * A PostgreSQL URL, which may name several hosts as libpq allows (`…@a:5432,b:5432/db`, for a
 * failover pair). The URL parser takes one host, so the URL is checked once per host.
 */
function databaseUrl(env: Env, name: string): string | null {
  const value = raw(env, name);
  if (value === undefined) return null;
  const [, start, hosts, rest] = /^([a-z]+:\/\/(?:[^@/?#]*@)?)([^/?#]*)(.*)$/is.exec(value) ?? [];
  for (const host of hosts?.split(',') ?? [value])
    url({ [name]: `${start ?? ''}${host}${rest ?? ''}` }, name, ['postgres:', 'postgresql:']);
  return value;
}
