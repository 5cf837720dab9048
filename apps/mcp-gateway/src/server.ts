import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { splitName } from './downstream/catalogue.js';
import type { ListKind } from './downstream/connection.js';
import { type Governance, governedCall } from './governance/call.js';
import { GATEWAY_INFO } from './info.js';

const INSTRUCTIONS =
  'Every tool call is checked against the governance policy before it runs, and recorded. ' +
  'A refused call returns an error result that says why (denied, rejected, expired, timed out, unavailable) and names its trace.';

/**
 * The gateway as one MCP server, for one client connection (stdio has one; Streamable HTTP
 * one per session). Tools go through `governedCall`; lists come merged from the catalogue;
 * resources and prompts pass through for reading.
 */
export function createGatewayServer(governance: Governance): Server {
  const { catalogue } = governance;
  const server = new Server(GATEWAY_INFO, {
    capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await catalogue.tools() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => governedCall(governance, request, extra));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await catalogue.resources() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: await catalogue.resourceTemplates() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    let failure: unknown = new McpError(ErrorCode.InvalidParams, `Resource not found: ${request.params.uri}`);
    for (const downstream of catalogue.candidatesFor(request.params.uri)) {
      try {
        const client = await downstream.client();
        if (!client.getServerCapabilities()?.resources) continue;
        return await client.readResource(request.params, { signal: extra.signal });
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: await catalogue.prompts() }));
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const target = splitName(request.params.name);
    const downstream = target && catalogue.downstreams.get(target.server);
    if (!target || !downstream) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    const client = await downstream.client();
    return client.getPrompt({ ...request.params, name: target.name }, { signal: extra.signal });
  });
  return server;
}

/** Tells a connected client that a merged list changed; one that has gone, or not yet initialized, is skipped. */
export function announceListChanged(server: Server, kind: ListKind): void {
  // Nothing may reach a client before it has initialized its session.
  if (server.getClientVersion() === undefined) return;
  const send =
    kind === 'tools'
      ? server.sendToolListChanged()
      : kind === 'resources'
        ? server.sendResourceListChanged()
        : server.sendPromptListChanged();
  send.catch(() => undefined);
}
