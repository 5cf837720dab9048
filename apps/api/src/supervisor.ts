import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { Config } from '@agov/config';
import { clusterMetrics } from '@agov/runtime';
import { startMetricsServer } from '@agov/runtime/metrics-server';
import type { Logger } from 'pino';

/** How long a process may take to finish its requests and close once asked to stop. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** What the supervisor sends a process it wants stopped. */
export const STOP_REQUEST = 'agov:stop-api-process';

/**
 * Runs the API as `config.apiProcesses` processes on one port (node:cluster, whose primary hands
 * each new connection to the next process in turn), so that its JavaScript uses more than one
 * core. This process serves no request: it serves the processes' metrics added up, and stops
 * them all on SIGTERM or SIGINT. The processes migrate the database as any processes sharing
 * it do, one after another under the migrations' advisory lock. A process that ends on its own
 * takes the others down with it, exit code 1, so that whatever supervises the service (Docker,
 * systemd, Kubernetes) starts it again whole instead of it serving on fewer processes unseen.
 */
export async function superviseApiProcesses(config: Config, logger: Logger): Promise<void> {
  const metricsServer =
    config.metricsPort === null ? null : await startMetricsServer(clusterMetrics(), config.metricsPort, config.host, logger);

  const running = new Set<Worker>();
  const killAll = () => {
    for (const worker of running) worker.process.kill('SIGKILL');
  };
  let stopping = false;
  const stop = async (exitCode: number) => {
    stopping = true;
    for (const worker of running) if (worker.isConnected()) worker.send(STOP_REQUEST);
    // Past its own grace period a process exits by itself; the timer is for one that cannot.
    await new Promise<void>((resolve) => {
      const check = () => running.size === 0 && resolve();
      cluster.on('exit', check);
      check();
      setTimeout(resolve, SHUTDOWN_GRACE_MS + 2_000).unref();
    });
    killAll();
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
      killAll();
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
