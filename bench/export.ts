/**
 * `npm run bench:export`: the bulk exports' memory. The built API runs in its own process on a
 * fresh database holding 100 000 traces, 20 000 of them with 5 events each (100 000 events).
 * Each export downloads as a stream that is counted and dropped, while the API's resident set
 * (VmRSS in /proc/<pid>/status) is sampled every 50 ms. Every export is run at 10 000 and at
 * 100 000 rows, each in a freshly started API warmed by one 1 000-row export of the same
 * kind, so the sizes start from the same baseline. The peak at 100 000 rows is mostly garbage
 * V8 has not yet collected (it lets old space grow before a full collection), so what the
 * export holds is measured apart: each size runs again in an API started with `--inspect`,
 * whose live heap is read after a full collection forced through the inspector before the
 * export and every 100 ms while it streams. Holding a bounded number of pages, the export's
 * live heap is the same at 100 000 rows as at 10 000.
 *
 * Environment: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_LOG_LEVEL (default warn).
 */
import { readFile } from 'node:fs/promises';
import postgres from 'postgres';
import { WebSocket } from 'undici';
import { freePort } from '../test/processes.js';
import { build, call, freshDatabase, markdownTable, signUp, spaced, startService, type Service } from './support.js';

const TRACES = 100_000;
const TRACES_WITH_EVENTS = 20_000;
const EVENTS_PER_TRACE = 5;
/** The bulk rows' first trace starts here; trace i starts i seconds later, its events 1–5 ms after that. */
const T0 = Date.parse('2026-10-01T00:00:00.000Z');
const SAMPLE_MS = 50;
/** Between the live heap's readings: each forces a full collection, which pauses the export. */
const LIVE_SAMPLE_MS = 100;
/** How much more the live heap may grow at 100 000 rows than at 10 000 before the bench calls it holding rows. */
const HELD_PAGES_SLACK_MIB = 5;
const MiB = 1024 * 1024;

type Kind = { title: string; path: string; format: 'csv' | 'json'; window: (rows: number) => { from: Date; to: Date } };

const at = (ms: number) => new Date(T0 + ms);
/** `rows` traces: the first `rows` seconds. */
const traceWindow = (rows: number) => ({ from: at(0), to: at(rows * 1000 - 1) });
/** `rows` events: the events of the first rows / 5 traces. */
const eventWindow = (rows: number) => traceWindow(rows / EVENTS_PER_TRACE);
const kinds: Kind[] = [
  { title: 'traces CSV', path: '/api/v1/traces/export', format: 'csv', window: traceWindow },
  { title: 'audit JSON', path: '/api/v1/audit/export', format: 'json', window: eventWindow },
  { title: 'audit CSV', path: '/api/v1/audit/export', format: 'csv', window: eventWindow },
];

async function main() {
  build();
  const database = await freshDatabase();
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  let service: Service | undefined;
  try {
    service = await startService(database.url);
    const seed = await seedTenant(service.url);
    let started = performance.now();
    await bulkInsert(sql, seed.traceId);
    console.log(
      `\nInserted ${TRACES} traces and ${TRACES_WITH_EVENTS * EVENTS_PER_TRACE} events in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // Over the limit: refused by the count before a byte of the body is produced.
    started = performance.now();
    const tooLarge = await download(service, seed.adminKey, kinds[0] as Kind, { from: at(0), to: new Date() });
    console.log(`traces export of ${TRACES + 1} rows: HTTP ${tooLarge.status} in ${Math.round(performance.now() - started)} ms\n`);
    if (tooLarge.status !== 413) throw new Error(`expected 413 over the limit, got ${tooLarge.status}`);

    // A fresh process per measurement: an earlier export's heap must not be the next one's baseline.
    const restart = async (nodeFlags: string[] = []) => {
      const previous = service;
      service = undefined;
      await previous?.stop();
      service = await startService(database.url, { nodeFlags });
      return service;
    };
    const sizes = [10_000, 100_000];
    const resident: string[][] = [];
    const live: string[][] = [];
    for (const kind of kinds) {
      for (const size of sizes) {
        const api = await restart();
        await warmUp(api, seed.adminKey, kind);
        const result = await measure(api, seed.adminKey, kind, kind.window(size));
        expectRows(result, size);
        resident.push([
          kind.title,
          spaced(size),
          (result.bytes / MiB).toFixed(1),
          (result.ms / 1000).toFixed(2),
          spaced(size / (result.ms / 1000)),
          (result.rssBefore / MiB).toFixed(0),
          (result.rssPeak / MiB).toFixed(0),
          `+${((result.rssPeak - result.rssBefore) / MiB).toFixed(0)}`,
        ]);
      }
      const growth: number[] = [];
      for (const size of sizes) {
        const inspectorPort = await freePort();
        const api = await restart([`--inspect=127.0.0.1:${inspectorPort}`]);
        await warmUp(api, seed.adminKey, kind);
        const inspector = await Inspector.connect(inspectorPort);
        try {
          const result = await measureLiveHeap(api, inspector, seed.adminKey, kind, kind.window(size));
          expectRows(result, size);
          growth.push(result.peak - result.before);
          live.push([
            kind.title,
            spaced(size),
            (result.before / MiB).toFixed(1),
            (result.peak / MiB).toFixed(1),
            `+${((result.peak - result.before) / MiB).toFixed(1)}`,
            String(result.samples),
          ]);
        } finally {
          inspector.close();
        }
      }
      // Ten times the rows, the same pages held: a few MiB apart at most (a page of 1 000 rows is under 1 MiB).
      const [small = 0, large = 0] = growth;
      if (large - small > HELD_PAGES_SLACK_MIB * MiB)
        throw new Error(
          `the ${kind.title} export holds its rows: its live heap grew ${(large / MiB).toFixed(1)} MiB at 100 000 rows against ${(small / MiB).toFixed(1)} at 10 000`,
        );
    }
    console.log(markdownTable(['export', 'rows', 'MiB sent', 's', 'rows/s', 'RSS before MiB', 'peak RSS MiB', 'growth MiB'], resident));
    console.log(`\nLive heap: after a full collection forced before the export and every ${LIVE_SAMPLE_MS} ms while it streams\n`);
    console.log(markdownTable(['export', 'rows', 'live heap before MiB', 'most live during MiB', 'growth MiB', 'readings'], live));
  } finally {
    await service?.stop();
    await sql.end();
    await database.drop();
  }
}

/** One 1 000-row export of `kind`, then a pause: the code paths compiled and the heap settled before measuring. */
async function warmUp(service: Service, key: string, kind: Kind) {
  expectRows(await download(service, key, kind, kind.window(1_000)), 1_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** One tenant as signup makes it, an admin-scoped key for the exports, an agent, a policy and one real evaluation. */
async function seedTenant(base: string) {
  const { headers, runtimeKey } = await signUp(base);
  const adminKey = (
    (await call(base, '/api/v1/api-keys', { method: 'POST', headers, body: { name: 'bench export', scopes: ['admin'] } })).body.data as {
      key: string;
    }
  ).key;
  const agent = await call(base, '/api/v1/agents', {
    method: 'POST',
    headers,
    body: {
      name: 'invoice-bot',
      description: 'Reconciles supplier invoices',
      owner_name: 'Olivia Owner',
      owner_role: 'Finance lead',
      team: 'finance',
      environment: 'prod',
      authority_model: 'delegated',
      identity_mode: 'service_identity',
      delegation_model: 'on_behalf_of_owner',
      autonomy_tier: 'medium',
      authorized_integrations: [
        { name: 'github', resource_scope: 'repo/*', data_classification: 'internal', allowed_operations: ['read', 'write'] },
      ],
      credential_config: null,
      metadata: { cost_center: 'F-100' },
      next_review_date: '2027-01-31',
      created_by: 'olivia@example.test',
      modified_by: 'olivia@example.test',
      modified_at: '2026-11-01T09:00:00.000Z',
    },
  });
  const agentId = agent.body.data.id as string;
  await call(base, '/api/v1/policies', {
    method: 'POST',
    headers,
    body: {
      agent_id: agentId,
      policy_name: 'Allow repository writes',
      target_integration: 'github',
      operation: 'write',
      resource_scope: 'repo/*',
      data_classification: 'internal',
      policy_effect: 'allow',
      rationale: 'Routine repository maintenance is allowed.',
      priority: 10,
      conditions: null,
      max_session_ttl: null,
      modified_by: 'olivia@example.test',
      modified_at: '2026-11-01T09:00:00.000Z',
    },
  });
  const evaluation = await call<{ trace_id: string }>(base, '/api/v1/evaluate', {
    method: 'POST',
    headers: { authorization: `Bearer ${runtimeKey}` },
    body: {
      agent_id: agentId,
      operation: 'write',
      target_integration: 'github',
      resource_scope: 'repo/app',
      data_classification: 'internal',
    },
  });
  return { adminKey, traceId: evaluation.body.trace_id };
}

/**
 * Copies of the real evaluation's trace and events, with new ids and times, written straight
 * to the tables. Integrity hashes and chain heads are copied as they are, so the copies do
 * not verify; the exports do not check them, and this measures memory, not the chain.
 */
async function bulkInsert(sql: postgres.Sql, templateId: string) {
  await sql`
    insert into traces
    select copy.* from traces t
    cross join generate_series(0, ${TRACES - 1}::int) i
    cross join lateral jsonb_populate_record(null::traces, to_jsonb(t) || jsonb_build_object(
      'id', gen_random_uuid(),
      'started_at', ${new Date(T0)}::timestamptz + i * interval '1 second',
      'completed_at', ${new Date(T0)}::timestamptz + i * interval '1 second' + (t.completed_at - t.started_at)
    )) copy
    where t.id = ${templateId}`;
  // The template's events in turn, as many times as it takes to give each copy five.
  await sql`
    with template as (select e.*, count(*) over () as events from trace_events e where e.trace_id = ${templateId})
    insert into trace_events
    select copy.* from traces t
    cross join generate_series(1, ${EVENTS_PER_TRACE}::int) position
    join template e on e.seq = (position - 1) % e.events + 1
    cross join lateral jsonb_populate_record(null::trace_events, to_jsonb(e) || jsonb_build_object(
      'id', gen_random_uuid(),
      'trace_id', t.id,
      'seq', position,
      'timestamp', t.started_at + position * interval '1 millisecond'
    )) copy
    where t.tenant_id = e.tenant_id and t.id <> ${templateId}
      and t.started_at < ${new Date(T0)}::timestamptz + ${TRACES_WITH_EVENTS}::int * interval '1 second'`;
  await sql`analyze traces`;
  await sql`analyze trace_events`;
}

interface Download {
  status: number;
  total: number;
  bytes: number;
  /** The last byte, to check that a JSON array was closed. */
  last: number;
  format: 'csv' | 'json';
}

/** Downloads an export, counting its bytes as they arrive and keeping none of them. */
async function download(service: Service, key: string, kind: Kind, window: { from: Date; to: Date }): Promise<Download> {
  const query = new URLSearchParams({ from: window.from.toISOString(), to: window.to.toISOString(), format: kind.format });
  const response = await fetch(`${service.url}${kind.path}?${query}`, { headers: { authorization: `Bearer ${key}` } });
  let bytes = 0;
  let last = 0;
  for await (const chunk of response.body ?? []) {
    bytes += chunk.byteLength;
    last = chunk[chunk.byteLength - 1] ?? last;
  }
  return { status: response.status, total: Number(response.headers.get('x-total-count')), bytes, last, format: kind.format };
}

function expectRows(result: Download, rows: number) {
  if (result.status !== 200 || result.total !== rows)
    throw new Error(`expected ${rows} rows, got HTTP ${result.status} with X-Total-Count ${result.total}`);
  if (result.format === 'json' && result.last !== ']'.charCodeAt(0)) throw new Error('the JSON export did not end with ]');
}

/** Downloads an export while sampling the API's resident set. */
async function measure(service: Service, key: string, kind: Kind, window: { from: Date; to: Date }) {
  const rssBefore = await rssOf(service.pid);
  let rssPeak = rssBefore;
  const sample = async () => {
    rssPeak = Math.max(rssPeak, await rssOf(service.pid));
  };
  const timer = setInterval(() => void sample(), SAMPLE_MS);
  const started = performance.now();
  try {
    const result = await download(service, key, kind, window);
    const ms = performance.now() - started;
    await sample();
    return { ...result, ms, rssBefore, rssPeak };
  } finally {
    clearInterval(timer);
  }
}

/** Downloads an export while reading the API's live heap, each time after a forced full collection. */
async function measureLiveHeap(service: Service, inspector: Inspector, key: string, kind: Kind, window: { from: Date; to: Date }) {
  const before = await inspector.liveHeap();
  let peak = before;
  let samples = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      peak = Math.max(peak, await inspector.liveHeap());
      samples += 1;
      await new Promise((resolve) => setTimeout(resolve, LIVE_SAMPLE_MS));
    }
  })();
  try {
    return { ...(await download(service, key, kind, window)), before, peak, samples };
  } finally {
    done = true;
    await sampling;
  }
}

/** A client of the API's inspector (the Chrome DevTools Protocol over a WebSocket), for its heap. */
class Inspector {
  private nextId = 1;
  private readonly pending = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id !== undefined) this.pending.get(message.id)?.(message);
      this.pending.delete(message.id ?? 0);
    });
  }

  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (url === undefined) throw new Error(`no inspector target on port ${port}`);
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new Inspector(socket);
  }

  /** Bytes of the JavaScript heap still in use after a full collection. */
  async liveHeap(): Promise<number> {
    await this.send('HeapProfiler.collectGarbage');
    return ((await this.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  }

  close() {
    this.socket.close();
  }

  private send(method: string): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (message) =>
        message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result),
      );
      this.socket.send(JSON.stringify({ id, method }));
    });
  }
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kB = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kB === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kB) * 1024;
}

await main();
