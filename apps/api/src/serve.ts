import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import type { Config } from '@agov/config';
import { createRuntime, reportMetricsToSupervisor } from '@agov/runtime';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { SHUTDOWN_GRACE_MS, STOP_REQUEST } from './supervisor.js';

/**
 * Serves the API from this process: alone, or as one of the processes a supervisor started
 * (API_PROCESSES), which then decides when it stops and serves its metrics.
 */
export async function serveApi(config: Config, logger: Logger): Promise<void> {
  const supervised = cluster.isWorker;
  const runtime = await createRuntime(config, { logger });
  const app = await buildApp(runtime, logger);

  // In-flight requests finish, then connections close; a second signal or the grace period forces the exit.
  let stopping = false;
  const shutdown = closeWithGrace({ delay: SHUTDOWN_GRACE_MS, skip: supervised ? ['SIGINT'] : [] }, async ({ signal, err, manual }) => {
    stopping = true;
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info(manual ? { by: 'supervisor' } : { signal }, 'shutting down');
    await app.close();
    await runtime.close();
  });
  if (supervised) {
    // Ctrl-C reaches every process of the group; the supervisor stops them in order.
    process.on('SIGINT', () => {});
    process.on('message', (message) => {
      if (message === STOP_REQUEST && !stopping) void shutdown.close();
    });
    reportMetricsToSupervisor(runtime.metrics.registry);
  }

  await app.listen({ host: config.host, port: config.port });
  await runtime.startJobs('api');
  const metricsPort = supervised ? null : await runtime.startMetricsServer();
  logger.info(
    { mode: config.mode, database: runtime.database.driver, jobs: runtime.dispatch ? 'in-process' : 'worker', metricsPort },
    supervised ? 'api process ready' : 'agent governance api ready',
  );
}
