import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Downstream, ListKind } from './connection.js';

/** Between a server's name and its tool's or prompt's: `fs__read_text_file`. */
export const SEPARATOR = '__';

export const exposedName = (server: string, name: string) => `${server}${SEPARATOR}${name}`;

/** The server and the downstream name an exposed name stands for; server names never hold the separator. */
export function splitName(exposed: string): { server: string; name: string } | null {
  const at = exposed.indexOf(SEPARATOR);
  return at <= 0 ? null : { server: exposed.slice(0, at), name: exposed.slice(at + SEPARATOR.length) };
}

interface Listing {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

/**
 * What every downstream server offers, merged: tools and prompts renamed `<server>__<name>`,
 * resources keeping their URIs (tool results link to them) under prefixed names. Each
 * server's lists are fetched once and kept until it says they changed or disconnects. A
 * server that cannot be reached is left out of the lists, not allowed to fail them.
 */
export class Catalogue {
  private readonly cache = new Map<string, Promise<Listing[keyof Listing]>>();
  /** Which server listed a resource URI, so a read goes to it. */
  private readonly resourceOwners = new Map<string, Downstream>();

  constructor(
    readonly downstreams: ReadonlyMap<string, Downstream>,
    private readonly log: Logger,
  ) {}

  invalidate(server: Downstream, kind: ListKind): void {
    const keys = kind === 'resources' ? (['resources', 'resourceTemplates'] as const) : [kind];
    for (const key of keys) this.cache.delete(`${server.name}:${key}`);
  }

  /**
   * The gateway serves no tasks (MCP's experimental long-running calls: it could not record
   * their outcome), so a tool's task support is left out: a client calls every tool plainly,
   * and one that runs only as a task is refused (`runsOnlyAsTask`).
   */
  async tools(): Promise<Tool[]> {
    return this.merged('tools', (server, { execution: _execution, ...tool }) => ({ ...tool, name: exposedName(server.name, tool.name) }));
  }

  async runsOnlyAsTask(server: Downstream, name: string): Promise<boolean> {
    const tools = await this.listOf(server, 'tools');
    return tools.some((tool) => tool.name === name && tool.execution?.taskSupport === 'required');
  }

  async prompts(): Promise<Prompt[]> {
    return this.merged('prompts', (server, prompt) => ({ ...prompt, name: exposedName(server.name, prompt.name) }));
  }

  async resources(): Promise<Resource[]> {
    return this.merged('resources', (server, resource) => {
      if (!this.resourceOwners.has(resource.uri)) this.resourceOwners.set(resource.uri, server);
      return { ...resource, name: exposedName(server.name, resource.name) };
    });
  }

  async resourceTemplates(): Promise<ResourceTemplate[]> {
    return this.merged('resourceTemplates', (server, template) => ({ ...template, name: exposedName(server.name, template.name) }));
  }

  /** The servers to ask for a resource: the one that listed it, else each that offers resources, in order. */
  candidatesFor(uri: string): Downstream[] {
    const owner = this.resourceOwners.get(uri);
    return owner ? [owner] : [...this.downstreams.values()];
  }

  private async merged<K extends keyof Listing>(kind: K, rename: (server: Downstream, item: Listing[K][number]) => Listing[K][number]) {
    const lists = await Promise.all(
      [...this.downstreams.values()].map(async (server) =>
        ((await this.listOf(server, kind)) as Listing[K][number][]).map((item) => rename(server, item)),
      ),
    );
    return lists.flat() as Listing[K];
  }

  private listOf<K extends keyof Listing>(server: Downstream, kind: K): Promise<Listing[K]> {
    const key = `${server.name}:${kind}`;
    let listing = this.cache.get(key);
    if (!listing) {
      listing = server
        .client()
        .then((client) => listAll(client, kind))
        .catch((error: unknown) => {
          this.cache.delete(key);
          this.log.warn({ server: server.name, kind, err: error }, 'downstream server could not be listed; left out');
          return [];
        });
      this.cache.set(key, listing);
    }
    return listing as Promise<Listing[K]>;
  }
}

/** Every page of one list, or nothing when the server does not offer that kind. */
async function listAll<K extends keyof Listing>(client: Client, kind: K): Promise<Listing[K]> {
  const capabilities = client.getServerCapabilities() ?? {};
  const offered = kind === 'tools' ? capabilities.tools : kind === 'prompts' ? capabilities.prompts : capabilities.resources;
  if (!offered) return [] as Listing[K];
  const items: unknown[] = [];
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    const page =
      kind === 'tools'
        ? await client.listTools(params).then((result) => ({ items: result.tools, next: result.nextCursor }))
        : kind === 'prompts'
          ? await client.listPrompts(params).then((result) => ({ items: result.prompts, next: result.nextCursor }))
          : kind === 'resources'
            ? await client.listResources(params).then((result) => ({ items: result.resources, next: result.nextCursor }))
            : await client.listResourceTemplates(params).then((result) => ({ items: result.resourceTemplates, next: result.nextCursor }));
    items.push(...page.items);
    cursor = page.next;
  } while (cursor);
  return items as Listing[K];
}
