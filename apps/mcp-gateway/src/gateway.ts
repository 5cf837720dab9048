import { createClient } from '@agov/sdk';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/load.js';
import { Catalogue } from './downstream/catalogue.js';
import { Downstream, type ListKind } from './downstream/connection.js';
import type { Governance } from './governance/call.js';
import type { GatewayMetrics } from './metrics.js';
import { announceListChanged, createGatewayServer } from './server.js';

/**
 * Retries of one evaluation while the governance API cannot be reached: a tool call fails
 * closed within seconds, rather than after the SDK's default half a minute.
 */
const EVALUATION_RETRY = { attempts: 3, maxElapsedMs: 5_000 };

export interface GatewayOptions {
  readonly config: GatewayConfig;
  /** Base of the approval links in refusals and progress messages. */
  readonly publicUrl: string;
  readonly log: Logger;
  readonly metrics: GatewayMetrics;
}

/**
 * What every client connection shares: the downstream servers, their merged lists, and the
 * governance client. Each connection gets its own MCP server (`openSession`); a list that
 * changes downstream is announced to all of them.
 */
export class Gateway {
  readonly catalogue: Catalogue;
  readonly governance: Governance;
  private readonly sessions = new Set<Server>();

  constructor(readonly options: GatewayOptions) {
    const { config, log, metrics } = options;
    const onListChanged = (server: Downstream, kind: ListKind) => {
      this.catalogue.invalidate(server, kind);
      for (const session of this.sessions) announceListChanged(session, kind);
    };
    const downstreams = new Map(config.servers.map((server) => [server.name, new Downstream(server, log, onListChanged)]));
    this.catalogue = new Catalogue(downstreams, log);
    this.governance = {
      client: createClient({ baseUrl: config.governance.url, apiKey: config.governance.apiKey, retry: EVALUATION_RETRY }),
      agentId: config.governance.agentId,
      approvalWaitMs: config.approvalWaitMs,
      publicUrl: options.publicUrl,
      catalogue: this.catalogue,
      metrics,
      log,
    };
  }

  /** Connects every downstream server; one that fails is logged and tried again on its next use. */
  async start(): Promise<void> {
    await Promise.all(
      [...this.catalogue.downstreams.values()].map((server) =>
        server
          .client()
          .catch((error: unknown) => this.options.log.error({ server: server.name, err: error }, 'downstream server could not be started')),
      ),
    );
  }

  /** An MCP server for one client connection, forgotten when it closes. */
  openSession(): Server {
    const session = createGatewayServer(this.governance);
    this.sessions.add(session);
    session.onclose = () => this.sessions.delete(session);
    return session;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close().catch(() => undefined)));
    await Promise.all([...this.catalogue.downstreams.values()].map((server) => server.close()));
  }
}
