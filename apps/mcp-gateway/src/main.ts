#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createLogger } from '@agov/runtime/logger';
import { startMetricsServer } from '@agov/runtime/metrics-server';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { ConfigError, loadConfigFile } from './config/load.js';
import { Gateway } from './gateway.js';
import { createHttpServer, MCP_PATH } from './http.js';
import { createMetrics } from './metrics.js';
import { settingsOf, UsageError } from './settings.js';

const USAGE = `Usage: agov-mcp-gateway --config FILE [--http PORT]

Puts the Agent Governance policy in front of MCP servers: every tool call is evaluated,
waits for a reviewer when the policy says so, and is recorded in a hash-chained trace.

  --config FILE   the gateway's YAML configuration (docs/mcp-gateway.md)
  --http PORT     serve Streamable HTTP at http://HOST:PORT${MCP_PATH} instead of stdio
  -h, --help      show this help

Environment: PUBLIC_URL (approval links; default the governance URL), HOST (default
127.0.0.1), LOG_LEVEL (default info; logs go to standard error), METRICS_PORT.`;

async function main(): Promise<number> {
  let settings: ReturnType<typeof settingsOf>;
  try {
    const { values } = parseArgs({
      options: { config: { type: 'string' }, http: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    settings = settingsOf(values, process.env);
  } catch (error) {
    process.stderr.write(`agov-mcp-gateway: ${(error as Error).message}\n${error instanceof UsageError ? '' : `\n${USAGE}\n`}`);
    return 2;
  }

  // Standard output carries the protocol; every log line goes to standard error.
  const log = createLogger({ logLevel: settings.logLevel }, pino.destination({ dest: 2, sync: false }));
  let config: Awaited<ReturnType<typeof loadConfigFile>>;
  try {
    config = await loadConfigFile(settings.configFile);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(
      `agov-mcp-gateway: the configuration cannot be used:\n${error.problems.map((problem) => `  ${problem}`).join('\n')}\n`,
    );
    return 2;
  }

  const metrics = createMetrics();
  const gateway = new Gateway({ config, publicUrl: settings.publicUrl ?? config.governance.url, log, metrics });
  const metricsServer =
    settings.metricsPort === null ? null : await startMetricsServer(metrics.registry, settings.metricsPort, settings.host, log);
  await gateway.start();

  const stopped = new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
    if (settings.httpPort === null) process.stdin.once('close', () => resolve());
  });

  if (settings.httpPort === null) {
    await gateway.openSession().connect(new StdioServerTransport());
    log.info(
      { servers: config.servers.map((server) => server.name), metricsPort: metricsServer?.port ?? null },
      'MCP gateway serving on stdio',
    );
    await stopped;
  } else {
    const server = createHttpServer(gateway, settings.host);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(settings.httpPort!, settings.host, resolve));
    const address = server.address() as { port: number };
    log.info(
      { servers: config.servers.map((server) => server.name), metricsPort: metricsServer?.port ?? null },
      `MCP gateway listening at http://${settings.host}:${address.port}${MCP_PATH}`,
    );
    await stopped;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await gateway.close();
  await metricsServer?.close();
  log.info('MCP gateway stopped');
  log.flush();
  return 0;
}

process.exitCode = await main();
