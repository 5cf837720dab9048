/**
 * `npm run bench:peer`: our evaluate against a policy engine, Cerbos, in one run, in one table.
 *
 * Our side is `npm run bench`'s setup: the built API on a fresh PostgreSQL database
 * (synchronous commit as the server has it), the bench tenant (50 rules per agent, the matching
 * one lowest), a webhook receiver for every approval, and one worker process consuming from
 * Redis. Approvals are also measured for a second tenant with the same rules and no webhook
 * endpoint, so that the table shows them with and without a delivery each. Cerbos (from npm,
 * see cerbos.ts) gets the same rule list as principal policies and is asked the same question
 * through `POST /api/check/resources`, once with its audit log written to a file and once with
 * audit off. Both sides get the same load generator and settings
 * (load.ts), never at once: every row is measured in turns, ours and Cerbos's alternating in
 * ABBA order, so that whatever else the machine does falls on both alike; each side stays up,
 * idle, while the other is measured, and each of our turns starts with nothing left for the
 * worker. Before the load, a few actions are put to both and must get the decisions the rules
 * give; under load a sample of answers is checked. Any error, non-2xx or wrong answer fails
 * the bench; a missed goal does not.
 *
 * Each row also gives both sides' CPU per call, read from `/proc`, and the ratio of rates those
 * costs allow on a machine whose cores are all busy.
 *
 * A last row puts the allow to both sides at one fixed rate, half of what Cerbos with its audit
 * file sustained in the run, open loop (load.ts, `driveAt`), for the latency each gives at a rate
 * it can hold: a saturating closed loop only measures the queue its own connections make.
 *
 * Environment: as `npm run bench` (BENCH_POSTGRES_URL, BENCH_REDIS_URL, BENCH_DURATION_S,
 * BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_LOG_LEVEL), and BENCH_API_PROCESSES, the API_PROCESSES
 * our API runs with (1 unless set).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropRedisPrefixes } from '../test/processes.js';
import { startReceiver } from '../test/receiver.js';
import { CERBOS_VERSION, type CerbosServer, checkRequest, effectOf, installCerbos, startCerbos, writePolicies } from './cerbos.js';
import { connections, drive, driveAt, duration, inTurn, mean, ratioOf, rounds, type Scenario, WARM_UP_S } from './load.js';
import { build, call, cpuPerRequest, freshDatabase, outboxWatch, startService, startWorker } from './support.js';
import { benchAction, benchAgents, benchRules, seedTenant } from './tenant.js';

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** How many processes serve our API (API_PROCESSES). */
const apiProcesses = Number(process.env.BENCH_API_PROCESSES ?? 1);

/**
 * Actions put to both sides before the load, for each agent: the measured one, decided by the
 * agent's lowest rule, then one that a deny rule above it matches and three that no rule does.
 */
const probes = [
  benchAction,
  { ...benchAction, target_integration: 'other-7' },
  { ...benchAction, target_integration: 'gitlab' },
  { ...benchAction, data_classification: 'confidential' },
  { ...benchAction, resource_scope: 'wiki/home' },
];
const probeDecisions = (agent: keyof typeof benchAgents) => [benchAgents[agent], 'deny', 'deny', 'deny', 'deny'].join();

type Row = Awaited<ReturnType<typeof drive>>;
/** A turn under load: its row, and the CPU each process spent on it, in ms per call (support.ts, `cpuPerRequest`). */
interface Turn {
  row: Row;
  cpu: Record<string, number>;
}
const SIDES = ['ours', 'cerbos'] as const;
type Side = (typeof SIDES)[number];

/** One line of the table: our scenario, the Cerbos server and check it is compared with, and the goals. */
interface Pair {
  ours: Scenario;
  /** The runtime key of the tenant our scenario runs as. */
  auth: Record<string, string>;
  cerbos: { server: CerbosServer; scenario: Scenario };
  ratioGoal: number;
}
const agentNames = Object.keys(benchAgents) as (keyof typeof benchAgents)[];

async function main() {
  const binary = installCerbos();
  build();
  const database = await freshDatabase();
  const [{ synchronous_commit }] = (await database.admin`show synchronous_commit`) as unknown as [{ synchronous_commit: string }];
  const env = { NODE_ENV: 'development', REDIS_URL: redisUrl, QUEUE_PREFIX: `agov-bench-${randomUUID()}` };
  const receiver = await startReceiver(200);
  const workDir = await mkdtemp(join(tmpdir(), 'agov-bench-peer-'));
  const service = await startService(database.url, { env: { ...env, API_PROCESSES: String(apiProcesses) } });
  const cerbosServers: CerbosServer[] = [];
  const stopCerbos = () => Promise.all(cerbosServers.map((server) => server.stop()));
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  const outbox = outboxWatch(database.url);
  try {
    const base = service.url;
    const seed = await seedTenant(base, receiver.url);
    // The same rules for a tenant with no webhook endpoint: its approvals have nothing to deliver.
    const quiet = await seedTenant(base, null);
    for (const agent of agentNames) {
      const decisions: string[] = [];
      for (const action of probes) {
        const body = { agent_id: seed.agentIds[agent]!, ...action };
        decisions.push(
          (await call<{ effect: string }>(base, '/api/v1/policies/test', { method: 'POST', headers: seed.auth, body })).body.effect,
        );
      }
      if (decisions.join() !== probeDecisions(agent))
        throw new Error(`dry run for ${agent}: ${decisions.join()}, not ${probeDecisions(agent)}`);
    }

    worker = await startWorker(database.url, env);
    const policyDir = join(workDir, 'policies');
    await writePolicies(policyDir, { 'allow-bot': benchRules('allow'), 'approval-bot': benchRules('approval_required') });
    const auditFile = join(workDir, 'audit.log');
    const startProbedCerbos = async (file: string | null) => {
      const server = await startCerbos(binary, workDir, policyDir, file);
      cerbosServers.push(server);
      await probeCerbos(server);
      return server;
    };
    const audited = await startProbedCerbos(auditFile);
    const unaudited = await startProbedCerbos(null);
    const check = (title: string, principal: string, expected: string): Scenario => ({
      title,
      path: '/api/check/resources',
      body: checkRequest(principal, benchAction),
      expect: (b) => effectOf(b, benchAction.operation) === expected,
    });
    // Approvals against Cerbos's labelled allow, for a tenant with or without a webhook endpoint.
    const approvalPair = (delivery: string, tenant: typeof seed, ratioGoal: number): Pair => ({
      ours: {
        title: `evaluate → approval_required (${delivery})`,
        path: '/api/v1/evaluate',
        body: tenant.approvalAction,
        expect: (b) => b.decision === 'approval_required',
      },
      auth: tenant.auth,
      cerbos: {
        server: audited,
        scenario: check('check → allow + output approval_required, audit to file', 'approval-bot', 'approval_required'),
      },
      ratioGoal,
    });
    const pairs: Pair[] = [
      {
        ours: { title: 'evaluate → allow', path: '/api/v1/evaluate', body: seed.allowAction, expect: (b) => b.decision === 'allow' },
        auth: seed.auth,
        cerbos: { server: audited, scenario: check('check → allow, audit to file', 'allow-bot', 'allow') },
        ratioGoal: 2,
      },
      approvalPair('delivered', seed, 1),
      approvalPair('nothing to deliver', quiet, 1.5),
      {
        ours: {
          title: 'dry run POST /policies/test',
          path: '/api/v1/policies/test',
          body: seed.allowAction,
          expect: (b) => b.effect === 'allow',
        },
        auth: seed.auth,
        cerbos: { server: unaudited, scenario: check('check → allow, no audit', 'allow-bot', 'allow') },
        ratioGoal: 6,
      },
    ];
    for (const pair of pairs) {
      await drive(base, pair.auth, pair.ours, WARM_UP_S);
      await drive(pair.cerbos.server.url, {}, pair.cerbos.scenario, WARM_UP_S);
    }
    await outbox.drain();

    const rows = [];
    const cpuRows = [];
    const backlogs: string[] = [];
    const turnsOf = new Map<Pair, Record<Side, Turn[]>>();
    const ourProcesses = { api: service.pid, worker: worker.pid };
    for (const pair of pairs) {
      const turns: Record<Side, Turn[]> = { ours: [], cerbos: [] };
      for (let round = 0; round < rounds; round += 1) {
        for (const side of inTurn(SIDES, round)) {
          if (side === 'cerbos') {
            const { server, scenario } = pair.cerbos;
            turns.cerbos.push(await cpuPerRequest({ cerbos: server.pid }, duration, () => drive(server.url, {}, scenario)));
            continue;
          }
          turns.ours.push(await cpuPerRequest(ourProcesses, duration, () => drive(base, pair.auth, pair.ours)));
          // The next turn, ours or Cerbos's, starts with nothing left for the worker.
          const left = await outbox.pending();
          if (left > 0) backlogs.push(`${left} (done ${(await outbox.drain()).toFixed(1)} s after the load)`);
        }
      }
      rows.push(compare(turns, pair));
      cpuRows.push(cpuByPart(turns, pair));
      turnsOf.set(pair, turns);
    }
    // Latency at a rate both sides can hold: half of Cerbos's saturated rate for the audited allow in this run.
    const allow = pairs[0]!;
    const fixedRate = Math.round(mean(ratesOf(turnsOf.get(allow)!.cerbos.map((turn) => turn.row))) / 2);
    const fixedTurns: Record<Side, Turn[]> = { ours: [], cerbos: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const side of inTurn(SIDES, round)) {
        if (side === 'cerbos') {
          const { server, scenario } = allow.cerbos;
          fixedTurns.cerbos.push(await cpuPerRequest({ cerbos: server.pid }, duration, () => driveAt(server.url, {}, scenario, fixedRate)));
        } else {
          fixedTurns.ours.push(await cpuPerRequest(ourProcesses, duration, () => driveAt(base, allow.auth, allow.ours, fixedRate)));
          await outbox.drain();
        }
      }
    }
    const fixedRow = atFixedRate(fixedTurns, {
      ...allow,
      ours: { ...allow.ours, title: `${allow.ours.title} at a fixed rate of ${fixedRate}/s` },
      cerbos: { ...allow.cerbos, scenario: { ...allow.cerbos.scenario, title: `${allow.cerbos.scenario.title}, ${fixedRate}/s` } },
    });
    await stopCerbos();
    const audit = { lines: await countLines(auditFile), mib: (await stat(auditFile)).size / 2 ** 20 };
    if (audit.lines === 0) throw new Error(`Cerbos wrote no audit entries to ${auditFile}`);

    console.log(
      `\nPostgreSQL synchronous_commit=${synchronous_commit}; our API on ${apiProcesses} process(es) of Node ${process.versions.node}, with 1 worker process consuming from Redis; Cerbos ${CERBOS_VERSION}.` +
        `\n${connections} connections; ${rounds} turns of ${duration} s per side and row after ${WARM_UP_S} s of warm-up, in ABBA order;` +
        ' req/s is the mean of the turns, p99 the worst turn.' +
        " The ratio the CPU allows: what a call cost Cerbos's server and the load generator ÷ what it cost ours and the load generator.\n",
    );
    console.table(rows);
    console.log('\nCPU per call, ms, by process (read from /proc; PostgreSQL and Redis are every process of each):\n');
    console.table(cpuRows);
    console.log(
      `\nAt a fixed rate, half of Cerbos's audited allow above, open loop (each request timed from when it was due), ${rounds} turns of ${duration} s per side; p50 and p99 are the worst turn's; CPU per call is the service's (ours: API, worker, PostgreSQL and Redis), the load generator left out.\n`,
    );
    console.table([fixedRow]);
    console.log(`Effects the worker finished after our turns: ${backlogs.join(', ') || 'none'}.`);
    console.log(`Cerbos audit file: ${audit.lines} entries, ${audit.mib.toFixed(1)} MiB (an access and a decision entry per check).`);
  } finally {
    await stopCerbos();
    await worker?.stop();
    await service.stop();
    await outbox.close();
    await receiver.close();
    await database.drop();
    await dropRedisPrefixes(redisUrl, [env.QUEUE_PREFIX]);
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Checks that a Cerbos server decides the probes as our dry run did. */
async function probeCerbos(server: CerbosServer): Promise<void> {
  for (const agent of agentNames) {
    const decisions: string[] = [];
    for (const action of probes) {
      const { body } = await call<Record<string, unknown>>(server.url, '/api/check/resources', {
        method: 'POST',
        body: checkRequest(agent, action),
      });
      decisions.push(effectOf(body, action.operation));
    }
    if (decisions.join() !== probeDecisions(agent))
      throw new Error(`Cerbos for ${agent}: ${decisions.join()}, not ${probeDecisions(agent)}`);
  }
}

/** ours p99 at the fixed rate (#34). */
const FIXED_RATE_P99_GOAL_MS = 10;

/** Each row's `requests/s`, and a side's worst `key` over its turns. */
const ratesOf = (rows: readonly Row[]) => rows.map((row) => row['requests/s']);
const worst = (rows: readonly Row[], key: 'p50 ms' | 'p99 ms') => Math.max(...rows.map((row) => row[key]));
const met = (yes: boolean) => (yes ? 'yes' : 'no');

/**
 * The fixed-rate line: both sides' worst p50 and p99 over their turns at the same rate, what a
 * call cost each side's service in CPU there, and ours against its p99 goal.
 */
function atFixedRate(turns: Record<Side, Turn[]>, pair: Pair) {
  const rows = { ours: turns.ours.map((turn) => turn.row), cerbos: turns.cerbos.map((turn) => turn.row) };
  const serviceCpu = (side: Side) => Number(mean(turns[side].map((turn) => spent(turn, SERVICE_PARTS[side]))).toFixed(3));
  return {
    ours: pair.ours.title,
    'req/s': Math.round(mean(ratesOf(rows.ours))),
    'p50 ms': worst(rows.ours, 'p50 ms'),
    'p99 ms': worst(rows.ours, 'p99 ms'),
    'CPU ms/call': serviceCpu('ours'),
    Cerbos: pair.cerbos.scenario.title,
    'Cerbos req/s': Math.round(mean(ratesOf(rows.cerbos))),
    'Cerbos p50 ms': worst(rows.cerbos, 'p50 ms'),
    'Cerbos p99 ms': worst(rows.cerbos, 'p99 ms'),
    'Cerbos CPU ms/call': serviceCpu('cerbos'),
    'p99 goal': `≤ ${FIXED_RATE_P99_GOAL_MS} ms`,
    'p99 met': met(worst(rows.ours, 'p99 ms') <= FIXED_RATE_P99_GOAL_MS),
  };
}

/** The processes each side's service runs on, by the names `cpuPerRequest` reads them under. */
const SERVICE_PARTS: Record<Side, readonly string[]> = { ours: ['api', 'worker', 'postgres', 'redis'], cerbos: ['cerbos'] };
/** The service and the load generator: everything a call costs. */
const WHOLE_CALL: Record<Side, readonly string[]> = { ours: [...SERVICE_PARTS.ours, 'bench'], cerbos: [...SERVICE_PARTS.cerbos, 'bench'] };

/** The CPU the `parts` spent on a turn, in ms per call. */
const spent = (turn: Turn, parts: readonly string[]) => parts.reduce((sum, part) => sum + (turn.cpu[part] ?? 0), 0);

/**
 * A row's CPU per call by process, each the mean over its side's turns, in ms; and the cores
 * each side kept busy (its service and the load generator), of which the API's alone.
 */
function cpuByPart(turns: Record<Side, Turn[]>, pair: Pair) {
  const part = (side: Side, name: string) => Number(mean(turns[side].map((turn) => spent(turn, [name]))).toFixed(3));
  const cores = (side: Side, parts: readonly string[]) =>
    Number(mean(turns[side].map((turn) => (turn.row['requests/s'] * spent(turn, parts)) / 1000)).toFixed(2));
  return {
    ours: pair.ours.title,
    API: part('ours', 'api'),
    worker: part('ours', 'worker'),
    PostgreSQL: part('ours', 'postgres'),
    Redis: part('ours', 'redis'),
    'load generator': part('ours', 'bench'),
    'Cerbos server': part('cerbos', 'cerbos'),
    'its load generator': part('cerbos', 'bench'),
    'cores busy, ours': cores('ours', WHOLE_CALL.ours),
    'of which the API': cores('ours', ['api']),
    'cores busy, Cerbos': cores('cerbos', WHOLE_CALL.cerbos),
  };
}

/**
 * One line of the table: both sides' turns, the ratio of their mean rates (overall and per
 * round) and the goal, and the ratio the CPU allows. With every core busy, a side's rate is
 * the cores over what a call costs them all (its service and the load generator), so the
 * inverse ratio of those costs is the rate ratio the machine's CPU allows.
 */
function compare(turns: Record<Side, Turn[]>, pair: Pair) {
  const wholeCall = (side: Side) => mean(turns[side].map((turn) => spent(turn, WHOLE_CALL[side])));
  const rows = { ours: turns.ours.map((turn) => turn.row), cerbos: turns.cerbos.map((turn) => turn.row) };
  const { overall: ratio, perRound } = ratioOf(ratesOf(rows.ours), ratesOf(rows.cerbos));
  return {
    ours: pair.ours.title,
    'req/s': Math.round(mean(ratesOf(rows.ours))),
    'p99 ms': worst(rows.ours, 'p99 ms'),
    Cerbos: pair.cerbos.scenario.title,
    'Cerbos req/s': Math.round(mean(ratesOf(rows.cerbos))),
    'Cerbos p99 ms': worst(rows.cerbos, 'p99 ms'),
    ratio: Number(ratio.toFixed(2)),
    'per round': perRound,
    'ratio goal': `≥ ${pair.ratioGoal.toFixed(1)}`,
    'ratio met': met(ratio >= pair.ratioGoal),
    'ratio the CPU allows': Number((wholeCall('cerbos') / wholeCall('ours')).toFixed(2)),
  };
}

async function countLines(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
  }
  return lines;
}

await main();
