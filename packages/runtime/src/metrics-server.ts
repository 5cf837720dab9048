import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** What a scrape reads: a process's registry, or every API process's metrics gathered by the supervisor. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` to Prometheus. It has no authentication: METRICS_PORT is for the
 * internal network only, never to be published.
 */
export async function startMetricsServer(source: MetricsSource, port: number, host: string, logger: Logger): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    source.metrics().then(
      (body) => response.writeHead(200, { 'content-type': source.contentType }).end(body),
      (error: unknown) => {
        logger.error({ err: error }, 'metrics: scrape failed');
        response.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Prometheus keeps its connection open between scrapes; do not wait for it.
        server.closeAllConnections();
      }),
  };
}
