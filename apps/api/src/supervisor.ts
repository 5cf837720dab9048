import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { Config } from '@agov/config';
import { openDatabase } from '@agov/db';
import { clusterMetrics } from '@agov/runtime';
import { startMetricsServer } from '@agov/runtime/metrics-server';
import type { Logger } from 'pino';

/** How long a process may take to finish its requests and close once asked to stop. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** What the supervisor sends a process it wants stopped. */
const STOP_REQUEST = { type: 'agov:stop' } as const;

export function isStopRequest(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === STOP_REQUEST.type;
}

/**
 * Runs the API as `config.apiProcesses` processes on one port (node:cluster, whose primary hands
 * each new connection to the next process in turn), so that its JavaScript uses more than one
 * core. This process serves no request: it migrates the database once, serves the processes'
 * metrics added up, and stops them all on SIGTERM or SIGINT. A process that ends on its own
 * takes the others down with it, exit code 1, so that whatever supervises the service (Docker,
 * systemd, Kubernetes) starts it again whole instead of it serving on fewer processes unseen.
 */
export async function superviseApiProcesses(config: Config, logger: Logger): Promise<void> {
  if (config.migrateOnStart) {
    const database = await openDatabase(config);
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
  }
  const metricsServer =
    config.metricsPort === null ? null : await startMetricsServer(clusterMetrics(), config.metricsPort, config.host, logger);

  const running = new Set<Worker>();
  let stopping = false;
  const stop = async (exitCode: number) => {
    stopping = true;
    for (const worker of running) if (worker.isConnected()) worker.send(STOP_REQUEST);
    const allEnded = new Promise<void>((resolve) => {
      const check = () => running.size === 0 && resolve();
      cluster.on('exit', check);
      check();
    });
    // Past its own grace period a process exits by itself; this is for one that cannot.
    const overdue = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS + 2_000).unref());
    await Promise.race([allEnded, overdue]);
    for (const worker of running) worker.process.kill('SIGKILL');
    await metricsServer?.close();
    process.exit(exitCode);
  };
  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker);
    if (stopping) return;
    logger.error(
      { apiProcess: worker.id, apiProcessPid: worker.process.pid, code, signal },
      'an API process ended; stopping the others, for whatever supervises the service to start it again',
    );
    void stop(1);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (!stopping) {
        logger.info({ signal }, 'shutting down');
        void stop(0);
        return;
      }
      logger.error({ signal }, 'second signal while stopping; killing the API processes');
      for (const worker of running) worker.process.kill('SIGKILL');
      process.exit(1);
    });
  }

  const listening = Array.from({ length: config.apiProcesses }, () => {
    const worker = cluster.fork();
    running.add(worker);
    return new Promise<AddressInfo>((resolve) => worker.once('listening', resolve));
  });
  const [address] = await Promise.all(listening);
  logger.info(
    { mode: config.mode, processes: config.apiProcesses, port: address!.port, metricsPort: metricsServer?.port ?? null },
    'agent governance api ready',
  );
}
