/**
 * `npm run bench:mcp`: what the MCP gateway adds to a tool call. An MCP client in this process
 * reads a small file with `read_text_file` from the reference filesystem server
 * (@modelcontextprotocol/server-filesystem) over stdio:
 * - direct: from the server itself;
 * - through the gateway: the built gateway, launched over stdio in front of the same server as a
 *   desktop client launches it. Each call is evaluated by the built API in its own process on a
 *   fresh PostgreSQL database (one rule allows the read), forwarded, and its outcome recorded
 *   before the result returns; a worker consumes from Redis.
 * A third path makes only the gateway's two requests to the API, evaluate then outcome, with the
 * same SDK, action and outcome and no tool: what the gateway adds while it waits for both.
 *
 * Each load runs in turns per path, in ABBA order, after a warm-up, so that whatever else the
 * machine does falls on every path alike: an open loop at each of BENCH_MCP_RATES calls a second
 * (bench/calls.ts), then a closed loop with BENCH_MCP_IN_FLIGHT calls in flight on the one
 * connection. Added latency is the gateway's percentile minus the direct one, over all of a
 * path's turns. Every result must be the file's content, and every call that reached the API must
 * have left a trace closed as executed, or the bench fails.
 *
 * Environment: BENCH_DURATION_S (default 10, per turn), BENCH_ROUNDS (default 2: turns per path
 * and load), BENCH_MCP_RATES (default 200,50,10), BENCH_MCP_IN_FLIGHT (default 16),
 * BENCH_GATEWAY_FLAGS (node flags for the gateway, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`),
 * BENCH_POSTGRES_URL, BENCH_REDIS_URL, BENCH_LOG_LEVEL (default warn, the gateway's too).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Action, createClient } from '@agov/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import postgres from 'postgres';
import { dropRedisPrefixes } from '../test/processes.js';
import { closedLoop, openLoop, percentiles, type Turn } from './calls.js';
import { duration, inTurn, mean, rounds, WARM_UP_S } from './load.js';
import { build, call, cpuPerRequest, freshDatabase, root, signUp, startService, startWorker } from './support.js';
import { agentBody } from './tenant.js';

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
const rates = (process.env.BENCH_MCP_RATES ?? '200,50,10').split(',').map(Number);
const inFlight = Number(process.env.BENCH_MCP_IN_FLIGHT ?? 16);
const gatewayFlags = (process.env.BENCH_GATEWAY_FLAGS ?? '').split(' ').filter(Boolean);
const GATEWAY = join(root, 'apps/mcp-gateway/dist/main.js');
const FILESYSTEM_SERVER = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
/** A small text file, as a model reads notes: reading it costs the filesystem server next to nothing. */
const CONTENT = 'Bench notes: the quick brown fox jumps over the lazy dog.\n'.repeat(4);
/** What the gateway may add at its rate, in ms. */
const GOAL = { rate: 200, p50: 3, p99: 10 };
const CPU_PARTS = ['gateway', 'fs server', 'api', 'worker', 'postgres', 'redis', 'bench'];
const PATHS = ['direct', 'api', 'gateway'] as const;
type PathName = (typeof PATHS)[number];
const PATH_TITLES: Record<PathName, string> = { direct: 'direct', api: 'evaluate + outcome only', gateway: 'through the gateway' };

interface Path {
  read(): Promise<void>;
  /** The processes of this path whose CPU a turn counts, by part. */
  children: Record<string, number>;
}

const LOADS: readonly { title: string; rate?: number; run(read: () => Promise<void>): Promise<Turn> }[] = [
  ...rates.map((rate) => ({
    title: `open loop, ${rate} calls/s`,
    rate,
    run: (read: () => Promise<void>) => openLoop(read, rate, duration),
  })),
  { title: `closed loop, ${inFlight} in flight`, run: (read) => closedLoop(read, inFlight, duration) },
];

async function main() {
  build();
  const database = await freshDatabase();
  const env = { REDIS_URL: redisUrl, QUEUE_PREFIX: `agov-bench-${randomUUID()}` };
  const service = await startService(database.url, { env });
  const worker = await startWorker(database.url, env);
  const dir = mkdtempSync(join(tmpdir(), 'agov-bench-mcp-'));
  const files = join(dir, 'files');
  mkdirSync(files);
  const file = join(files, 'notes.txt');
  writeFileSync(file, CONTENT);
  const clients: Client[] = [];
  const traces = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const { headers, runtimeKey } = await signUp(service.url);
    const agent = await call(service.url, '/api/v1/agents', { method: 'POST', headers, body: agentBody('desktop-agent') });
    const agentId = agent.body.data.id as string;
    await call(service.url, '/api/v1/policies', { method: 'POST', headers, body: readRule(agentId, files) });
    const config = join(dir, 'gateway.yaml');
    writeFileSync(config, gatewayConfig(service.url, agentId, files));
    const direct = await connect([FILESYSTEM_SERVER, files]);
    const gateway = await connect([...gatewayFlags, GATEWAY, '--config', config], { AGOV_API_KEY: runtimeKey, LOG_LEVEL: logLevel });
    clients.push(direct.client, gateway.client);
    const governance = createClient({ baseUrl: service.url, apiKey: runtimeKey });
    const args = { path: file };
    // What the gateway asks for this call, and records of its result (governance/action.ts, governance/call.ts).
    const action: Action = {
      agent_id: agentId,
      operation: 'read',
      target_integration: 'filesystem',
      resource_scope: file,
      data_classification: 'internal',
      context: { tool: 'read_text_file', arguments: args },
    };
    const result = { content: [{ type: 'text', text: CONTENT }], structuredContent: { content: CONTENT } };
    const metadata = {
      tool: 'read_text_file',
      content_types: ['text'],
      result_sha256: createHash('sha256').update(JSON.stringify(result)).digest('hex'),
    };
    /** Each request's own time on the third path, evaluate and outcome apart, for the current load. */
    const split = { evaluate: [] as number[], outcome: [] as number[] };
    let evaluated = 0;
    const paths: Record<PathName, Path> = {
      direct: { read: () => readFile(direct.client, 'read_text_file', args), children: { 'fs server': direct.pid } },
      // guard() without a tool: evaluate, then record the outcome, as the gateway's call does.
      api: {
        read: async () => {
          const sent = performance.now();
          const evaluation = await governance.evaluate(action);
          if (evaluation.decision !== 'allow') throw new Error(`the read was not allowed: ${evaluation.reason}`);
          const decided = performance.now();
          await governance.recordOutcome(evaluation.trace_id, { status: 'success', metadata });
          split.evaluate.push(decided - sent);
          split.outcome.push(performance.now() - decided);
          evaluated += 1;
        },
        children: { api: service.pid, worker: worker.pid },
      },
      gateway: {
        read: async () => {
          await readFile(gateway.client, 'fs__read_text_file', args);
          evaluated += 1;
        },
        children: { gateway: gateway.pid, 'fs server': childOf(gateway.pid), api: service.pid, worker: worker.pid },
      },
    };

    // Cold processes and caches would make whichever path runs first look slow.
    for (const name of PATHS) await closedLoop(paths[name].read, inFlight, WARM_UP_S);
    const rows = [];
    const added = [];
    for (const load of LOADS) {
      split.evaluate.length = 0;
      split.outcome.length = 0;
      const turns: Record<PathName, { row: Turn; cpu: Record<string, number> }[]> = { direct: [], api: [], gateway: [] };
      for (let round = 0; round < rounds; round += 1) {
        for (const name of inTurn(PATHS, round)) {
          const { children, read } = paths[name];
          turns[name].push(await cpuPerRequest(children, duration, () => load.run(read)));
        }
      }
      const pooled = (name: PathName) => percentiles(turns[name].flatMap(({ row }) => row.latencies));
      for (const name of PATHS) {
        const { p50, p99, max } = pooled(name);
        rows.push({
          load: load.title,
          path: PATH_TITLES[name],
          'calls/s': turns[name].map(({ row }) => Math.round(row.answered)).join(' – '),
          'p50 ms': p50.toFixed(1),
          'p99 ms': p99.toFixed(1),
          'max ms': max.toFixed(0),
          ...Object.fromEntries(
            CPU_PARTS.map((part) => {
              const ms = turns[name].map(({ cpu }) => cpu[part]);
              return [`cpu ms/call ${part}`, ms[0] === undefined ? '' : mean(ms as number[]).toFixed(2)];
            }),
          ),
        });
      }
      const [through, bare] = [pooled('gateway'), pooled('direct')];
      const perRound = turns.gateway.map(({ row }, round) => {
        const [g, d] = [percentiles(row.latencies), percentiles(turns.direct[round]!.row.latencies)];
        return `${(g.p50 - d.p50).toFixed(1)}/${(g.p99 - d.p99).toFixed(1)}`;
      });
      const [evaluate, outcome] = [percentiles(split.evaluate), percentiles(split.outcome)];
      added.push(
        `${load.title}: p50 +${(through.p50 - bare.p50).toFixed(1)} ms, p99 +${(through.p99 - bare.p99).toFixed(1)} ms ` +
          `(per round, p50/p99: ${perRound.join(', ')}); requests alone, p50/p99: evaluate ${evaluate.p50.toFixed(1)}/${evaluate.p99.toFixed(1)} ms, ` +
          `outcome ${outcome.p50.toFixed(1)}/${outcome.p99.toFixed(1)} ms`,
      );
      if (load.rate === GOAL.rate) {
        const met = through.p50 - bare.p50 <= GOAL.p50 && through.p99 - bare.p99 <= GOAL.p99;
        added.push(`  goal at ${GOAL.rate} calls/s, added p50 ≤ ${GOAL.p50} ms and p99 ≤ ${GOAL.p99} ms: ${met ? 'met' : 'missed'}`);
      }
    }

    const [recorded] =
      await traces`select count(*)::int as n, count(*) filter (where final_outcome = 'executed')::int as executed from traces`;
    if (recorded!.n !== evaluated || recorded!.executed !== evaluated)
      throw new Error(`${evaluated} calls evaluated, but ${recorded!.n} traces, ${recorded!.executed} of them executed`);

    console.log(`\n${rounds} turns of ${duration} s per path and load, in ABBA order; latencies over all of a path's turns.`);
    console.log(`${evaluated} calls evaluated, each with its trace closed as executed.\n`);
    console.table(rows);
    console.log(`Added by the gateway:\n  ${added.join('\n  ')}`);
  } finally {
    for (const client of clients) await client.close();
    await traces.end();
    await worker.stop();
    await service.stop();
    await database.drop();
    await dropRedisPrefixes(redisUrl, [env.QUEUE_PREFIX]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The gateway's configuration: the filesystem server, its reads evaluated as reads of the path. */
const gatewayConfig = (url: string, agentId: string, files: string) => `
governance: { url: ${url}, api_key: \${AGOV_API_KEY}, agent_id: ${agentId} }
servers:
  fs:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(files)}]
    target_integration: filesystem
    defaults: { data_classification: internal }
    tools:
      read_text_file: { operation: read, resource_scope: "{path}" }
`;

/** The rule that allows the reads: anything under `files`. */
const readRule = (agentId: string, files: string) => ({
  agent_id: agentId,
  policy_name: 'read the bench files',
  target_integration: 'filesystem',
  operation: 'read',
  resource_scope: `${files}/*`,
  data_classification: 'internal',
  policy_effect: 'allow',
  rationale: 'The benchmark reads its own files.',
  priority: 10,
  conditions: null,
  max_session_ttl: null,
  modified_by: 'bench',
  modified_at: '2026-01-01T00:00:00.000Z',
});

/** An MCP client of a server it launches over stdio with `node args…`. */
async function connect(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  // As a client does before it calls a tool; the client then checks every result against the
  // tool's output schema, on both paths alike.
  await client.listTools();
  return { client, pid: transport.pid! };
}

/** The one process `pid` started: the gateway's downstream server. */
function childOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
  if (children.length !== 1) throw new Error(`expected the gateway to run one downstream server, found ${children.length}`);
  return Number(children[0]);
}

/** One call of `tool`; throws unless it answers the file's content. */
async function readFile(client: Client, tool: string, args: Record<string, unknown>): Promise<void> {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  const first = result.content[0];
  if (result.isError || first?.type !== 'text' || first.text !== CONTENT)
    throw new Error(`${tool}: not the file's content: ${JSON.stringify(result).slice(0, 500)}`);
}

await main();
