import closeWithGrace from 'close-with-grace';
import { loadConfig } from '@agov/config';
import { createLogger, createRuntime } from '@agov/runtime';
import { buildApp } from './app.js';

const config = loadConfig();
const logger = createLogger(config);
const runtime = await createRuntime(config, { logger });
const app = await buildApp(runtime, logger);

// In-flight requests finish, then connections close; a second signal or 10 s forces the exit.
closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) logger.error({ err }, 'shutting down after an error');
  else logger.info({ signal }, 'shutting down');
  await app.close();
  await runtime.close();
});

await app.listen({ host: config.host, port: config.port });
await runtime.startJobs('api');
const metricsPort = await runtime.startMetricsServer();
logger.info(
  { mode: config.mode, database: runtime.database.driver, jobs: runtime.dispatch ? 'in-process' : 'worker', metricsPort },
  'agent governance api ready',
);
