import { ConfigError, type Config } from '@agov/config';
import { bullmqBackend, InProcessBackend, startDispatch, type Dispatch, type JobBackend } from '@agov/jobs';
import { openDatabase, type Database } from '@agov/db';
import {
  ApprovalWaiters,
  CacheFreshness,
  clearCaches,
  createCaches,
  DatabaseAvailability,
  EndpointBreaker,
  deliveryStore,
  evaluationWriter,
  listenForApprovalMoves,
  listenForInvalidations,
  OVERDUE_STATEMENT_MS,
  readInvalidationClock,
  systemClock,
  type Clock,
  type Deps,
} from '@agov/domain';
import type { Logger } from 'pino';
import { createMailer } from './mailer.js';
import { createMetrics, type Metrics } from './metrics.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { createHistoryCounters, createRateCounters } from './rate-limit-store.js';
import { createSecretBox } from './secret-keys.js';
import { createChat } from './slack.js';
import { createBilling } from './stripe.js';
import { createWebhookTransport, webhookTargets } from './webhook-transport.js';

/**
 * Group commit (see StatementBatcher) for evaluate's writes, in each process: a statement carries
 * every evaluation decided while the one before was written, and a second starts beside it only
 * for a batch at least half full, or once the first has taken far longer than a write does (it
 * waits on a connection to a database coming back). Every statement pays a fixed part whatever
 * it carries: with up to four under way at once the batches were smaller and evaluate → allow
 * about a fifth slower (docs/benchmarks.md, "One write under way").
 */
const EVALUATION_BATCH = 64;
const EVALUATION_WRITES = {
  maxInFlight: 4,
  maxBatch: EVALUATION_BATCH,
  minOverlappingBatch: EVALUATION_BATCH / 2,
  overtakeAfterMs: OVERDUE_STATEMENT_MS,
};
/**
 * Reads and records of webhook deliveries (a worker attempts hundreds at once): one statement
 * of each under way, so each carries every delivery that got that far meanwhile.
 */
const DELIVERY_STATEMENTS = { maxInFlight: 1, maxBatch: 64 };

/**
 * How long a request waits for this process's listener to deliver an invalidation it knows
 * was committed. Delivery takes milliseconds; past this the listener is taken to have lost
 * it, and the caches are dropped instead.
 */
const FRESHNESS_WAIT_MS = 2_000;

/** While the database is unreachable, how often a process asks whether it is back. */
const DATABASE_PROBE_MS = 100;
/** A probe not answered in this long counts as failed; a healthy server answers in milliseconds. */
const DATABASE_PROBE_DEADLINE_MS = 500;

/** Which app a process runs: it decides whether the process carries effects out. */
export type ProcessRole = 'api' | 'worker';

export interface Runtime {
  readonly config: Config;
  readonly database: Database;
  readonly deps: Deps;
  /** The effect dispatch running in this process, if any. */
  readonly dispatch: Dispatch | null;
  /**
   * Starts dispatching effects where this process should: a worker consumes BullMQ on Redis;
   * without `REDIS_URL` the API runs the same handlers in-process, and there is no worker.
   */
  startJobs(role: ProcessRole): Promise<void>;
  /** This process's Prometheus metrics; the API adds its request timings to them. */
  readonly metrics: Metrics;
  /** Serves `GET /metrics` on `METRICS_PORT` when it is set; resolves to the port bound, or null. */
  startMetricsServer(): Promise<number | null>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger: Logger;
  clock?: Clock;
}

/**
 * The one place that chooses implementations from configuration: PostgreSQL or embedded
 * PGlite, BullMQ or in-process jobs; the key of stored secrets, the counters, mailer and
 * payment provider join here.
 */
export async function createRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const database = await openDatabase(config);
  if (config.migrateOnStart) await database.migrate();
  const secrets = await createSecretBox(config, database, options.logger).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  const approvalWaiters = new ApprovalWaiters();
  const metrics = createMetrics(database, approvalWaiters, options.logger);
  const counters = await createRateCounters(config, options.logger);

  const caches = createCaches();
  const freshness = new CacheFreshness(() => readInvalidationClock(database), {
    waitMs: FRESHNESS_WAIT_MS,
    dropCaches: () => clearCaches(caches),
  });
  const databaseAvailability = new DatabaseAvailability(
    () => database.server(),
    {
      lost: (err) => options.logger.error({ err }, 'database unreachable; requests that need it answer 503 until it is back'),
      regained: (server, downMs) => options.logger.info({ server, downMs }, 'database reachable again'),
      moved: (server, previous) => options.logger.warn({ server, previous }, 'database server changed'),
    },
    { probeMs: DATABASE_PROBE_MS, deadlineMs: DATABASE_PROBE_DEADLINE_MS },
  );
  const targets = webhookTargets(config.mode);
  const deps: Deps = {
    database,
    databaseAvailability,
    clock: options.clock ?? systemClock,
    caches,
    approvalWaiters,
    // An embedded database belongs to this one process, which applies its own invalidations at commit.
    freshness: database.driver === 'pglite' ? { ensure: async () => {}, heardSoFar: () => null } : freshness,
    evaluations: evaluationWriter(database, EVALUATION_WRITES),
    sessionTtlMs: config.sessionTtlMs,
    publicUrl: config.publicUrl,
    secrets,
    webhookTargets: targets,
    webhooks: {
      transport: createWebhookTransport(targets),
      deliveries: deliveryStore(database, DELIVERY_STATEMENTS),
      timeoutMs: config.webhookTimeoutMs,
      retryDelaysMs: config.webhookRetryDelaysMs,
      // An endpoint whose probe timed out is tried again when a first retry would be.
      breaker: new EndpointBreaker(config.webhookRetryDelaysMs[0]!),
    },
    mailer: createMailer(config, options.logger),
    chat: createChat(config, options.logger),
    rateLimits: { counters, perMinute: config.rateLimits },
    history: createHistoryCounters(counters, config),
    billing: createBilling(config, options.logger),
    observe: metrics.observer,
  };

  const stopListening = await listenForInvalidations(database, caches, freshness, {
    malformed: (payload) => options.logger.warn({ payload }, 'ignored malformed cache invalidation'),
    // Invalidations sent while the listening connection was down never arrive, so a deleted
    // key or a suspended agent would stay usable until its entry's TTL ran out.
    resubscribed: () => options.logger.warn('cache invalidation listener reconnected; clearing the caches'),
    clockUnread: (err) => options.logger.error({ err }, 'could not read the cache invalidation clock'),
  });
  const stopWaking = await listenForApprovalMoves(database, deps.approvalWaiters, {
    // Moves announced while the listening connection was down never arrive: every long poll reads again.
    resubscribed: () => options.logger.warn('approval listener reconnected; waking every waiting poll'),
  });
  await freshness.start();
  const server = await database.server();
  databaseAvailability.connected(server);
  options.logger.info({ server }, 'database connected');

  const logger = options.logger;
  let dispatch: Dispatch | null = null;
  let metricsServer: MetricsServer | null = null;
  return {
    config,
    database,
    deps,
    get dispatch() {
      return dispatch;
    },
    async startJobs(role) {
      if (dispatch) return;
      const backend = jobBackendFor(config, role, logger);
      if (!backend) return;
      dispatch = await startDispatch(
        deps,
        backend,
        {
          pollMs: config.outboxPollMs,
          leaseMs: config.outboxLeaseMs,
          every: {
            audit_batch: config.auditBatchIntervalMs,
            approval_expiry_sweep: config.approvalExpirySweepMs,
            idempotency_key_sweep: IDEMPOTENCY_KEY_SWEEP_MS,
            tally_fold: TALLY_FOLD_MS,
          },
        },
        logger,
      );
      metrics.watchDispatch(dispatch, deps.webhooks.breaker);
    },
    metrics,
    async startMetricsServer() {
      if (config.metricsPort === null) return null;
      metricsServer ??= await startMetricsServer(metrics.registry, config.metricsPort, config.host, logger);
      return metricsServer.port;
    },
    async close() {
      databaseAvailability.close();
      await metricsServer?.close();
      await dispatch?.close();
      deps.approvalWaiters.close();
      await stopWaking();
      await stopListening();
      await counters.close();
      await database.close();
    },
  };
}

/**
 * How often idempotency keys past their 24 hours are deleted. Not a setting: an expired key is
 * never given again whether or not it was deleted, so this only bounds the table's size.
 */
const IDEMPOTENCY_KEY_SWEEP_MS = 10 * 60 * 1_000;
/** A few changes a group commit between folds: a total reads a few hundred at most. */
const TALLY_FOLD_MS = 5_000;

/** BullMQ in a worker on Redis; in-process in the API without Redis; otherwise nothing. */
function jobBackendFor(config: Config, role: ProcessRole, logger: Logger): JobBackend | null {
  if (role === 'worker') {
    if (!config.redisUrl) throw new ConfigError('REDIS_URL', 'is required by the worker; without it the API runs jobs itself');
    return bullmqBackend({ redisUrl: config.redisUrl, prefix: config.queuePrefix, leaseMs: config.outboxLeaseMs, logger });
  }
  return config.redisUrl ? null : new InProcessBackend(logger);
}

export { checkHealth, type Health } from './health.js';
export { clusterMetrics, reportMetricsToSupervisor } from './cluster-metrics.js';
export { createLogger } from './logger.js';
export type { Metrics } from './metrics.js';
export { createWebhookTransport, webhookTargets } from './webhook-transport.js';
