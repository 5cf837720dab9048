import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/load.js';
import { GATEWAY_INFO } from '../info.js';

/** What changed downstream: the gateway drops what it cached and tells its clients. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * One configured downstream server, as an MCP client of it. Connects on first use and again
 * after the connection closes (a crashed process, a dropped HTTP session), so one crash fails
 * the calls in flight, not every later one.
 */
export class Downstream {
  private connecting: Promise<Client> | null = null;
  private current: Client | null = null;
  private closed = false;

  constructor(
    readonly config: ServerConfig,
    private readonly log: Logger,
    private readonly onListChanged: (server: Downstream, kind: ListKind) => void,
  ) {}

  get name(): string {
    return this.config.name;
  }

  client(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error(`the gateway is shutting down`));
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = null;
      throw error;
    });
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    const connecting = this.connecting;
    this.connecting = null;
    await connecting?.then((client) => client.close()).catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const client = new Client(GATEWAY_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onListChanged(this, 'tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.onListChanged(this, 'resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.onListChanged(this, 'prompts'));
    const transport = this.transport();
    client.onclose = () => {
      // A later call connects afresh; what this connection listed may no longer hold.
      if (this.current !== client) return;
      this.current = null;
      this.connecting = null;
      if (!this.closed) {
        this.log.warn({ server: this.name }, 'downstream server disconnected; the next request reconnects');
        for (const kind of ['tools', 'resources', 'prompts'] as const) this.onListChanged(this, kind);
      }
    };
    this.current = client;
    await client.connect(transport);
    this.log.info({ server: this.name, version: client.getServerVersion() }, 'downstream server connected');
    return client;
  }

  private transport(): Transport {
    const { transport } = this.config;
    if (transport.kind === 'http') {
      return new StreamableHTTPClientTransport(transport.url, { requestInit: { headers: transport.headers } });
    }
    return new StdioClientTransport({
      command: transport.command,
      args: [...transport.args],
      // The downstream gets a minimal environment (PATH, HOME, …), not the gateway's secrets.
      env: { ...getDefaultEnvironment(), ...transport.env },
      ...(transport.cwd && { cwd: transport.cwd }),
      stderr: 'inherit',
    });
  }
}
