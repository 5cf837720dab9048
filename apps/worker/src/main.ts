import { loadConfig } from '@agov/config';
import { createLogger } from '@agov/runtime';

// The worker consumes queued jobs; until job consumers exist it validates its configuration
// and exits cleanly, so deployments that already run it stay healthy.
const config = loadConfig();
const logger = createLogger(config);
logger.info({ queue: config.redisUrl ? 'redis' : 'in-process' }, 'worker: no job consumers are registered; exiting');
