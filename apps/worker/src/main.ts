import closeWithGrace from 'close-with-grace';
import { loadConfig } from '@agov/config';
import { createLogger, createRuntime } from '@agov/runtime';

// config → runtime → consumers. Scale by running more of these: claims and queues are safe
// to share.
const config = loadConfig();
const logger = createLogger(config);
const runtime = await createRuntime(config, { logger });

// Running jobs finish (their unfinished effects come due again anyway); a second signal or
// the delay forces the exit.
closeWithGrace({ delay: config.webhookTimeoutMs + 5_000 }, async ({ signal, err }) => {
  if (err) logger.error({ err }, 'worker shutting down after an error');
  else logger.info({ signal }, 'worker shutting down');
  await runtime.close();
});

await runtime.startJobs('worker');
const metricsPort = await runtime.startMetricsServer();
logger.info({ database: runtime.database.driver, queuePrefix: config.queuePrefix, metricsPort }, 'agent governance worker ready');
