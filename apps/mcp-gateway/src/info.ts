import { createRequire } from 'node:module';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** How the gateway names itself to the agent and to each downstream server. */
export const GATEWAY_INFO = { name: 'agov-mcp-gateway', version } as const;
