/**
 * The load generator every bench uses: autocannon with the same settings, failing on any
 * non-2xx or error and on a sampled body with the wrong answer, so that a figure made of fast
 * error answers can never be published.
 *
 * Environment: BENCH_DURATION_S (default 10), BENCH_CONNECTIONS (default 64), BENCH_ROUNDS
 * (default 2).
 */
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { openLoop, percentiles } from './calls.js';
import { cpuPerRequest } from './support.js';

export const duration = Number(process.env.BENCH_DURATION_S ?? 10);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
/** Turns per side when two sides are compared. */
export const rounds = Number(process.env.BENCH_ROUNDS ?? 2);

export const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** One side's rates over another's, turn by turn: the ratio of their means, and each round's. */
export function ratioOf(rates: readonly number[], baseline: readonly number[]): { overall: number; perRound: string } {
  return {
    overall: mean(rates) / mean(baseline),
    perRound: rates.map((rate, round) => (rate / baseline[round]!).toFixed(2)).join(' '),
  };
}

/**
 * The sides in the order of one round of turns: as given in even rounds, reversed in odd ones
 * (ABBA), so that a drift of the machine's speed falls on both sides alike.
 */
export const inTurn = <Side>(sides: readonly Side[], round: number): readonly Side[] => (round % 2 === 0 ? sides : [...sides].reverse());
/** Turns per side when two sides alternate (`alternate`). */
const ALTERNATE_ROUNDS = 8;
/** Seconds of load before a measurement, so that a cold process does not make whichever runs first look slow. */
export const WARM_UP_S = 3;
/** Every this many responses, the body is checked. */
const SAMPLE_EVERY = 50;

export interface Scenario {
  title: string;
  path: string;
  /** What is POSTed; a scenario without one is a GET. */
  body?: Record<string, unknown>;
  expect: (body: Record<string, unknown>) => boolean;
  /** The credential's headers, when the scenario needs a tenant of its own; else those `drive` is given. */
  auth?: Record<string, string>;
}

/** The scenario's method, headers and body: a POST of its body as JSON, or a GET when it has none. */
function requestOf(scenario: Scenario, headers: Record<string, string>) {
  const auth = scenario.auth ?? headers;
  return scenario.body
    ? { method: 'POST' as const, headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(scenario.body) }
    : { method: 'GET' as const, headers: auth };
}

/** One scenario under load; throws on any non-2xx or a sampled body with the wrong decision. */
export async function drive(base: string, headers: Record<string, string>, scenario: Scenario, seconds = duration) {
  let seen = 0;
  let wrong = 0;
  const result = await autocannon({
    url: `${base}${scenario.path}`,
    connections,
    duration: seconds,
    ...requestOf(scenario, headers),
    requests: [
      {
        onResponse: (status: number, body: string) => {
          seen += 1;
          if (seen % SAMPLE_EVERY === 0 && (status !== 200 || !scenario.expect(JSON.parse(body)))) wrong += 1;
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0 || wrong > 0) {
    throw new Error(`${scenario.title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${wrong} sampled bodies with the wrong answer`);
  }
  return {
    scenario: scenario.title,
    'requests/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
  };
}

/**
 * One scenario at a fixed rate, open loop (calls.ts): each request sent when due, whatever is
 * still in flight, and timed from when it was due, so a stall counts in every request it holds
 * up. autocannon's own rate limit would time each request from when it was sent, hiding the
 * queue behind a stall. Throws as `drive` does.
 */
export async function driveAt(base: string, headers: Record<string, string>, scenario: Scenario, rate: number, seconds = duration) {
  const pool = new Pool(base, { connections });
  const request = { path: scenario.path, ...requestOf(scenario, headers) };
  let seen = 0;
  try {
    const turn = await openLoop(
      async () => {
        const response = await pool.request(request);
        const text = await response.body.text();
        seen += 1;
        if (response.statusCode !== 200 || (seen % SAMPLE_EVERY === 0 && !scenario.expect(JSON.parse(text)))) {
          throw new Error(`${scenario.title}: HTTP ${response.statusCode} at a fixed rate: ${text.slice(0, 200)}`);
        }
      },
      rate,
      seconds,
    );
    const { p50, p99 } = percentiles(turn.latencies);
    return { scenario: scenario.title, 'requests/s': Math.round(turn.answered), 'p50 ms': round2(p50), 'p99 ms': round2(p99) };
  } finally {
    await pool.close();
  }
}

const round2 = (ms: number) => Math.round(ms * 100) / 100;

/** One side of `alternate`: a scenario against a service, and the processes whose CPU it costs besides PostgreSQL and Redis. */
export interface AlternateSide {
  title: string;
  base: string;
  auth: Record<string, string>;
  scenario: Scenario;
  processes: Record<string, number>;
}

/**
 * Two sides driven in short alternating turns after a warm-up, in ABBA order so that whatever
 * else the machine does falls on both alike; prints each side's rates and CPU per call, and the
 * first's rate ÷ the second's.
 */
export async function alternate(title: string, sides: readonly AlternateSide[]) {
  for (const side of sides) await drive(side.base, side.auth, side.scenario, WARM_UP_S);
  const turnS = Math.max(2, Math.round(duration / ALTERNATE_ROUNDS));
  const rates: number[][] = sides.map(() => []);
  const p99s: number[][] = sides.map(() => []);
  const cpus: Record<string, number>[][] = sides.map(() => []);
  for (let round = 0; round < ALTERNATE_ROUNDS; round += 1) {
    for (const index of inTurn([0, 1], round)) {
      const side = sides[index]!;
      const { row, cpu } = await cpuPerRequest(side.processes, turnS, () => drive(side.base, side.auth, side.scenario, turnS));
      rates[index]!.push(row['requests/s']);
      p99s[index]!.push(row['p99 ms']);
      cpus[index]!.push(cpu);
    }
  }
  console.log(`\n${title}, ${connections} connections, ${ALTERNATE_ROUNDS} turns of ${turnS} s per side, ABBA order\n`);
  const cpuMs = (index: number, part: string) => mean(cpus[index]!.map((cpu) => cpu[part] ?? 0)).toFixed(3);
  console.table(
    sides.map((side, index) => ({
      side: side.title,
      'requests/s (mean)': Math.round(mean(rates[index]!)),
      'requests/s (turns)': rates[index]!.join(' '),
      'p99 ms (worst turn)': Math.max(...p99s[index]!),
      'CPU ms per call: API, worker, PostgreSQL, Redis': ['api', 'worker', 'postgres', 'redis']
        .map((part) => cpuMs(index, part))
        .join(', '),
    })),
  );
  const { overall, perRound } = ratioOf(rates[0]!, rates[1]!);
  console.log(`${sides[0]!.title} / ${sides[1]!.title}: ${overall.toFixed(3)} overall; per round ${perRound}`);
}
