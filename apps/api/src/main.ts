import cluster from 'node:cluster';
import { loadConfig } from '@agov/config';
import { createLogger } from '@agov/runtime';
import { serveApi } from './serve.js';
import { superviseApiProcesses } from './supervisor.js';

const config = loadConfig();
const logger = createLogger(config);
if (cluster.isPrimary && config.apiProcesses > 1) await superviseApiProcesses(config, logger);
else await serveApi(config, cluster.isWorker ? logger.child({ apiProcess: cluster.worker!.id }) : logger);
