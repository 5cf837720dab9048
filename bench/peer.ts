/**
 * `npm run bench:peer`: our evaluate against a policy engine, Cerbos, in one run, in one table.
 *
 * Our side is `npm run bench`'s setup: the built API on a fresh PostgreSQL database
 * (synchronous commit as the server has it), the bench tenant (50 rules per agent, the matching
 * one lowest), a webhook receiver for every approval, and one worker process consuming from
 * Redis. Cerbos (from npm, see cerbos.ts) gets the same rule list as principal policies and is
 * asked the same question through `POST /api/check/resources`, once with its audit log written
 * to a file and once with audit off. Both sides get the same load generator and settings
 * (load.ts), one after the other, never at once. Before the load, a few actions are put to
 * both and must get the decisions the rules give; under load a sample of answers is checked.
 * Any error, non-2xx or wrong answer fails the bench; a missed goal does not.
 *
 * Environment: as `npm run bench` (BENCH_POSTGRES_URL, BENCH_REDIS_URL, BENCH_DURATION_S,
 * BENCH_CONNECTIONS, BENCH_LOG_LEVEL).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropRedisPrefixes } from '../test/processes.js';
import { startReceiver } from '../test/receiver.js';
import { CERBOS_VERSION, checkRequest, effectOf, installCerbos, startCerbos, writePolicies } from './cerbos.js';
import { connections, drive, duration, type Scenario, WARM_UP_S } from './load.js';
import { build, call, freshDatabase, outboxWatch, type Service, startService, startWorker } from './support.js';
import { benchAction, benchAgents, benchRules, seedTenant } from './tenant.js';

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

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
const agentNames = Object.keys(benchAgents) as (keyof typeof benchAgents)[];

async function main() {
  const binary = installCerbos();
  build();
  const database = await freshDatabase();
  const [{ synchronous_commit }] = (await database.admin`show synchronous_commit`) as unknown as [{ synchronous_commit: string }];
  const env = { NODE_ENV: 'development', REDIS_URL: redisUrl, QUEUE_PREFIX: `agov-bench-${randomUUID()}` };
  const receiver = await startReceiver(200);
  const workDir = await mkdtemp(join(tmpdir(), 'agov-bench-peer-'));
  let service: Service | null = await startService(database.url, { env });
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  const outbox = outboxWatch(database.url);
  try {
    const base = service.url;
    const seed = await seedTenant(base, receiver.url);
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
    const ours: Scenario[] = [
      { title: 'evaluate → allow', path: '/api/v1/evaluate', body: seed.allowAction, expect: (b) => b.decision === 'allow' },
      {
        title: 'evaluate → approval_required (delivered)',
        path: '/api/v1/evaluate',
        body: seed.approvalAction,
        expect: (b) => b.decision === 'approval_required',
      },
      { title: 'dry run POST /policies/test', path: '/api/v1/policies/test', body: seed.allowAction, expect: (b) => b.effect === 'allow' },
    ];
    // Each measurement starts with nothing left for the worker to do, so that one scenario's
    // backlog does not take CPU from the next.
    for (const scenario of ours) await drive(base, seed.auth, scenario, WARM_UP_S);
    await outbox.drain();
    const ourRows: Row[] = [];
    const backlogs: string[] = [];
    for (const scenario of ours) {
      ourRows.push(await drive(base, seed.auth, scenario));
      const left = await outbox.pending();
      if (left > 0) backlogs.push(`${scenario.title}: ${left} effects left, done ${(await outbox.drain()).toFixed(1)} s after the load`);
    }
    // Cerbos runs alone; what stays up of ours (PostgreSQL, Redis) is idle.
    await worker.stop();
    worker = null;
    await service.stop();
    service = null;

    const policyDir = join(workDir, 'policies');
    await writePolicies(policyDir, { 'allow-bot': benchRules('allow'), 'approval-bot': benchRules('approval_required') });
    const check = (title: string, principal: string, expected: string): Scenario => ({
      title,
      path: '/api/check/resources',
      body: checkRequest(principal, benchAction),
      expect: (b) => effectOf(b, benchAction.operation) === expected,
    });
    const auditFile = join(workDir, 'audit.log');
    const audited = await onCerbos(binary, workDir, policyDir, auditFile, [
      check('check → allow, audit to file', 'allow-bot', 'allow'),
      check('check → allow + output approval_required, audit to file', 'approval-bot', 'approval_required'),
    ]);
    const audit = { lines: await countLines(auditFile), mib: (await stat(auditFile)).size / 2 ** 20 };
    if (audit.lines === 0) throw new Error(`Cerbos wrote no audit entries to ${auditFile}`);
    const [unaudited] = await onCerbos(binary, workDir, policyDir, null, [check('check → allow, no audit', 'allow-bot', 'allow')]);

    console.log(
      `\nPostgreSQL synchronous_commit=${synchronous_commit}; our API with 1 worker process consuming from Redis; Cerbos ${CERBOS_VERSION}.` +
        `\n${connections} connections, ${duration} s per scenario after ${WARM_UP_S} s of warm-up, one scenario at a time.\n`,
    );
    console.table([
      compare(ourRows[0]!, audited[0]!, 1.3, 50),
      compare(ourRows[1]!, audited[1]!, 1.0, 50),
      compare(ourRows[2]!, unaudited!, 3, null),
    ]);
    console.log(`Effects the worker finished after the load: ${backlogs.join('; ') || 'none'}.`);
    console.log(`Cerbos audit file: ${audit.lines} entries, ${audit.mib.toFixed(1)} MiB (an access and a decision entry per check).`);
  } finally {
    await worker?.stop();
    await service?.stop();
    await outbox.close();
    await receiver.close();
    await database.drop();
    await dropRedisPrefixes(redisUrl, [env.QUEUE_PREFIX]);
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Starts Cerbos, checks that it decides the probes as our dry run did, then warms up and
 * measures each scenario; stops Cerbos whatever happens.
 */
async function onCerbos(
  binary: string,
  workDir: string,
  policyDir: string,
  auditFile: string | null,
  scenarios: readonly Scenario[],
): Promise<Row[]> {
  const cerbos = await startCerbos(binary, workDir, policyDir, auditFile);
  try {
    for (const agent of agentNames) {
      const decisions: string[] = [];
      for (const action of probes) {
        const { body } = await call<Record<string, unknown>>(cerbos.url, '/api/check/resources', {
          method: 'POST',
          body: checkRequest(agent, action),
        });
        decisions.push(effectOf(body, action.operation));
      }
      if (decisions.join() !== probeDecisions(agent))
        throw new Error(`Cerbos for ${agent}: ${decisions.join()}, not ${probeDecisions(agent)}`);
    }
    for (const scenario of scenarios) await drive(cerbos.url, {}, scenario, WARM_UP_S);
    const rows: Row[] = [];
    for (const scenario of scenarios) rows.push(await drive(cerbos.url, {}, scenario));
    return rows;
  } finally {
    await cerbos.stop();
  }
}

/** One line of the table: our figures, Cerbos's, their ratio and the goals. */
function compare(ours: Row, cerbos: Row, ratioGoal: number, p99GoalMs: number | null) {
  const ratio = ours['requests/s'] / cerbos['requests/s'];
  const met = (yes: boolean) => (yes ? 'yes' : 'no');
  return {
    ours: ours.scenario,
    'req/s': ours['requests/s'],
    'p99 ms': ours['p99 ms'],
    Cerbos: cerbos.scenario,
    'Cerbos req/s': cerbos['requests/s'],
    'Cerbos p99 ms': cerbos['p99 ms'],
    ratio: Number(ratio.toFixed(2)),
    'ratio goal': `≥ ${ratioGoal.toFixed(1)}`,
    'ratio met': met(ratio >= ratioGoal),
    'p99 goal': p99GoalMs === null ? '' : `≤ ${p99GoalMs} ms`,
    'p99 met': p99GoalMs === null ? '' : met(ours['p99 ms'] <= p99GoalMs),
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
