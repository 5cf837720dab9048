import type { AddressInfo, Socket } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv, TRACE_COLUMNS } from './export-format.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { keyWithScopes, signupTenant, useTestApp } from './harness.js';
import { evaluation } from './scenarios.js';

/*
 * The bulk export over a real socket, read the way a slow client reads it. The other export
 * tests go through `inject`, which hands the test the whole body at once; here the test stops
 * pulling after the first rows, changes the LAST trace of the range from a second connection,
 * and then reads on. The export reads the database one page (1 000 rows) at a time, each page
 * its own statement, so the change shows in the body only if the last page was read after the
 * client had stopped: a server that built or buffered the body first would send the old name.
 * The rows are wide (evaluate's longest resource_scope, ~2.2 KB a row, ~45 MB in all) so that
 * what the kernel's socket buffers and the streams between them can hold is a few pages, well
 * short of the twenty: the server must stop and wait for the client, which is backpressure.
 */

const TRACES = 20_000;
/** The copies' first trace starts here; copy i starts i seconds later. */
const T0 = Date.parse('2024-01-01T00:00:00.000Z');
const SCOPE = `repo/${'x'.repeat(1995)}`;
const RENAMED = 'renamed-while-the-client-waits';

const t = useTestApp({ ownDatabase: true });
let sql: postgres.Sql;
let base: string;
/** The server's side of each connection, to watch what it has written. */
const sockets: Socket[] = [];
beforeAll(async () => {
  sql = postgres(t.runtime.config.databaseUrl!, { max: 1, onnotice: () => {} });
  t.app.server.on('connection', (socket: Socket) => sockets.push(socket));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => sql.end());

/** TRACES copies of one real trace, with new ids and start times, written by SQL (as bench/export.ts does). */
async function copiesOf(templateId: string) {
  await sql`
    insert into traces
    select copy.* from traces t
    cross join generate_series(0, ${TRACES - 1}::int) i
    cross join lateral jsonb_populate_record(null::traces, to_jsonb(t) || jsonb_build_object(
      'id', gen_random_uuid(),
      'started_at', ${new Date(T0)}::timestamptz + i * interval '1 second',
      'completed_at', null
    )) copy
    where t.id = ${templateId}`;
  await sql`analyze traces`;
}

/** Resolves once the socket has written nothing new for `quietMs`: the server is waiting to be read. */
async function stalled(socket: Socket, quietMs = 300) {
  let written = socket.bytesWritten;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    if (socket.bytesWritten === written) return written;
    written = socket.bytesWritten;
  }
}

describe('GET /api/v1/traces/export over a socket', () => {
  it('streams with backpressure: the last page is read from the database after the client has the first rows', async () => {
    const tenant = await signupTenant(t.app);
    const agent = await createAgent(t.app, tenant.admin);
    await createPolicy(t.app, tenant.admin, agent.id);
    const template = await evaluation(t.app, tenant, action(agent.id, { resource_scope: SCOPE }));
    await copiesOf(template.trace_id);
    const { apiKey } = await keyWithScopes(t.app, tenant, ['admin']);

    const range = { from: new Date(T0).toISOString(), to: new Date(T0 + TRACES * 1000 - 1).toISOString(), format: 'csv' };
    const response = await fetch(`${base}/api/v1/traces/export?${new URLSearchParams(range)}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('x-total-count'))).toBe(TRACES);

    // The header and at least one whole row; then the client stops pulling.
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let body = '';
    while (body.split('\r\n').length < 3) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the export ended before its first row');
      body += decoder.decode(value, { stream: true });
    }
    const [socket] = sockets.filter((s) => !s.destroyed);
    expect(socket).toBeDefined();
    const sentBeforeTheChange = await stalled(socket!);

    // The last trace of the range, renamed now: only a page read from here on can show it.
    const renamed = await sql`
      update traces set agent_name = ${RENAMED}
      where id = (select id from traces where tenant_id = ${tenant.tenantId} and started_at <= ${range.to}::timestamptz
                  order by started_at desc, id desc limit 1)
      returning id`;
    expect(renamed).toHaveLength(1);

    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      body += decoder.decode(value, { stream: true });
    }
    body += decoder.decode();
    const rows = parseCsv(body, TRACE_COLUMNS);
    expect(rows).toHaveLength(TRACES);
    expect(rows[0]).toMatchObject({ agent_name: agent.name, resource_scope: SCOPE, started_at: range.from });
    expect(rows.at(-1)).toMatchObject({ trace_id: renamed[0]!.id, agent_name: RENAMED });
    expect(rows.filter((row) => row.agent_name === RENAMED)).toHaveLength(1);
    // While the client waited the server had written a fraction of the body, then stopped.
    const total = Buffer.byteLength(body);
    expect(sentBeforeTheChange).toBeLessThan(total / 2);
  });
});
