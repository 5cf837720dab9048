import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../apps/api/test/harness.js';
import { GENERATED_TYPES_FILE, generatedTypesSource } from '../scripts/generate.js';
import { createClient, GovernanceError } from '../src/index.js';
import { acceptsIdempotencyKey } from '../src/retry.js';
import { startDroppingProxy } from './proxy.js';
import { governedAgent, listen, writeToRepo } from './service.js';

const t = useTestApp();

/** Rejects with what `promise` throws. */
async function thrown(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** A fetch that counts the requests it sends and keeps their headers. */
function countingFetch() {
  const sent: { method: string; path: string; headers: Headers }[] = [];
  const fetchAndCount: typeof fetch = (input, init) => {
    const request = new Request(input as Request, init);
    sent.push({ method: request.method, path: new URL(request.url).pathname, headers: request.headers });
    return fetch(request);
  };
  return { sent, fetch: fetchAndCount };
}

describe('the generated types', () => {
  it('are generated from the committed contract (run `npm run contract:write` after changing a route or schema)', async () => {
    expect(readFileSync(GENERATED_TYPES_FILE, 'utf8')).toBe(await generatedTypesSource());
  });

  it('name every convenience method after an operation of the document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    const methods = Object.keys(createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ai_x' })).filter(
      (name) => name !== 'api' && name !== 'guard',
    );
    expect(methods.filter((name) => !operationIds.includes(name))).toEqual([]);
  });

  it('send an Idempotency-Key exactly where the document declares one', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
    };
    const declared: string[] = [];
    const sent: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key'))
          declared.push(name);
        if (acceptsIdempotencyKey(method.toUpperCase(), path.replace(/\{[^}]+\}/g, '0f6c1a52-0000-4000-8000-000000000001')))
          sent.push(name);
      }
    }
    expect(declared).toHaveLength(10);
    expect(sent).toEqual(declared);
  });
});

describe('typed errors', () => {
  it('a 404 is a GovernanceError with the body’s code, status, message and request id, sent once', async () => {
    const { adminKey } = await governedAgent(t, await listen(t), 'allow');
    const counting = countingFetch();
    const client = createClient({ baseUrl: await listen(t), apiKey: adminKey, fetch: counting.fetch });
    const error = await thrown(client.getAgent('00000000-0000-4000-8000-000000000000'));
    expect(error).toBeInstanceOf(GovernanceError);
    const { name, error: code, status, message, details, request_id, trace_id } = error as GovernanceError;
    expect({ name, code, status, message, details, trace_id }).toEqual({
      name: 'GovernanceError',
      code: 'not_found',
      status: 404,
      message: 'Agent not found',
      details: null,
      trace_id: null,
    });
    expect(request_id).toMatch(/^[\w-]+$/);
    expect(counting.sent).toHaveLength(1);
  });

  it('a 403 carries the scope it needed and the key’s scopes', async () => {
    const { runtimeKey } = await governedAgent(t, await listen(t), 'allow');
    const client = createClient({ baseUrl: await listen(t), apiKey: runtimeKey });
    const error = (await thrown(client.getAgent('00000000-0000-4000-8000-000000000000'))) as GovernanceError;
    expect({ code: error.error, status: error.status, details: error.details }).toEqual({
      code: 'forbidden',
      status: 403,
      details: { required_scope: 'agents:read', scopes: ['evaluate', 'traces:read', 'traces:write', 'approvals:read', 'policies:read'] },
    });
  });

  it('a 409 on an outcome carries the trace id; a 400 is not retried', async () => {
    const { runtime, agentId } = await governedAgent(t, await listen(t), 'deny');
    const denied = await runtime.evaluate(writeToRepo(agentId));
    const conflict = (await thrown(runtime.recordOutcome(denied.trace_id, { status: 'success' }))) as GovernanceError;
    expect({ code: conflict.error, status: conflict.status, trace_id: conflict.trace_id }).toEqual({
      code: 'conflict',
      status: 409,
      trace_id: denied.trace_id,
    });

    const counting = countingFetch();
    const { runtimeKey } = await governedAgent(t, await listen(t), 'allow');
    const client = createClient({ baseUrl: await listen(t), apiKey: runtimeKey, fetch: counting.fetch });
    const invalid = (await thrown(
      client.evaluate({ ...writeToRepo(agentId), data_classification: 'secret' as 'public' }),
    )) as GovernanceError;
    expect({ code: invalid.error, status: invalid.status }).toEqual({ code: 'validation_error', status: 400 });
    expect(counting.sent).toHaveLength(1);
  });
});

describe('retries', () => {
  const servers: { close(): void }[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  /** A local server answering each request with the next of `answers` (the last repeats). */
  async function scripted(answers: { status: number; headers?: Record<string, string>; body?: unknown }[]) {
    const received: { at: number; headers: IncomingHttpHeaders; method: string }[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const answer = answers[Math.min(received.length, answers.length - 1)]!;
        received.push({ at: Date.now(), headers: req.headers, method: req.method! });
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body ?? {}));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
  }

  const unavailable = (retryAfter: string) => ({
    status: 503,
    headers: { 'retry-after': retryAfter },
    body: { error: 'service_unavailable', message: 'The database is unavailable', status: 503, request_id: 'req-1' },
  });
  const evaluation = { decision: 'allow', trace_id: 't-1', approval_request_id: null, reason: 'ok', policy_rule_id: null };

  it('a call aborted after a garbage collection stops at once: the caller’s signal reaches the request it sent', async () => {
    // A server that never answers, as one holding a long poll.
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    });
    const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'ai_x' });
    const controller = new AbortController();
    const outcome = thrown(client.getApprovalStatus('00000000-0000-4000-8000-000000000001', { wait: 60, signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A collection in the meantime, as a busy process has: it once dropped the link from the
    // caller's signal to the copy of the request in flight, and the abort with it.
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    for (let i = 0; i < 3; i += 1) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    const stillWaiting = new Promise((resolve) => setTimeout(resolve, 2_000, 'still waiting 2 s after the abort').unref());
    expect(await Promise.race([outcome.then((error) => (error as Error).name), stillWaiting])).toBe('AbortError');
  });

  it('honours Retry-After on 503 and 429, repeating the one Idempotency-Key of the call', async () => {
    const limited = {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { error: 'rate_limit_exceeded', message: 'Too many requests', status: 429, request_id: 'req-2' },
    };
    const service = await scripted([unavailable('1'), limited, { status: 200, body: evaluation }]);
    const client = createClient({ baseUrl: service.url, apiKey: 'ai_key' });
    expect(await client.evaluate(writeToRepo('a-1'))).toEqual(evaluation);
    expect(service.received).toHaveLength(3);
    expect(service.received[1]!.at - service.received[0]!.at).toBeGreaterThanOrEqual(1_000);
    expect(service.received[2]!.at - service.received[1]!.at).toBeGreaterThanOrEqual(1_000);
    const keys = service.received.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys).toEqual([keys[0], keys[0], keys[0]]);

    // A second call is another logical call: another key.
    await client.evaluate(writeToRepo('a-1'));
    expect(service.received[3]!.headers['idempotency-key']).not.toBe(keys[0]);
  });

  it('gives up after the attempts allowed and throws the last answer', async () => {
    const service = await scripted([unavailable('0')]);
    const client = createClient({ baseUrl: service.url, apiKey: 'ai_key', retry: { attempts: 3 } });
    const error = (await thrown(client.getAgent('a-1'))) as GovernanceError;
    expect({ code: error.error, status: error.status, request_id: error.request_id }).toEqual({
      code: 'service_unavailable',
      status: 503,
      request_id: 'req-1',
    });
    expect(service.received).toHaveLength(3);
  });

  it('does not wait past its time budget: a Retry-After beyond it is answered at once', async () => {
    const service = await scripted([unavailable('120')]);
    const client = createClient({ baseUrl: service.url, apiKey: 'ai_key', retry: { maxElapsedMs: 5_000 } });
    const started = Date.now();
    expect(((await thrown(client.getAgent('a-1'))) as GovernanceError).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(service.received).toHaveLength(1);
  });

  it('never retries another 4xx, and `retry: false` sends once', async () => {
    const service = await scripted([
      { status: 404, body: { error: 'not_found', message: 'Agent not found', status: 404, request_id: 'r' } },
    ]);
    await thrown(createClient({ baseUrl: service.url, apiKey: 'ai_key' }).getAgent('a-1'));
    expect(service.received).toHaveLength(1);
    const unavailableOnce = await scripted([unavailable('0')]);
    await thrown(createClient({ baseUrl: unavailableOnce.url, apiKey: 'ai_key', retry: false }).getAgent('a-1'));
    expect(unavailableOnce.received).toHaveLength(1);
  });

  it('an error that is not the service’s body keeps its status', async () => {
    const service = await scripted([{ status: 502, body: 'Bad gateway' }]);
    const error = (await thrown(createClient({ baseUrl: service.url, apiKey: 'ai_key' }).getAgent('a-1'))) as GovernanceError;
    expect({ code: error.error, status: error.status, message: error.message, request_id: error.request_id }).toEqual({
      code: 'http_502',
      status: 502,
      message: '"Bad gateway"',
      request_id: null,
    });
  });
});

describe('a network error after the service did the work', () => {
  it('evaluate is retried with its key: one trace, the first answer', async () => {
    const { runtime, admin, runtimeKey, agentId } = await governedAgent(t, await listen(t), 'allow');
    const proxy = await startDroppingProxy(await listen(t));
    try {
      const client = createClient({ baseUrl: proxy.url, apiKey: runtimeKey });
      const evaluation = await client.evaluate(writeToRepo(agentId));
      expect(proxy.connections).toBe(2);
      const traces = (await admin.api.GET('/api/v1/traces', { params: { query: { agent_id: agentId, limit: 20, offset: 0 } } })).data!;
      expect(traces.data.map((trace) => trace.id)).toEqual([evaluation.trace_id]);
      expect((await runtime.getTrace(evaluation.trace_id)).final_outcome).toBe('in_progress');
    } finally {
      await proxy.close();
    }
  });

  it('guard() through it: the action runs once and its outcome is recorded on the one trace', async () => {
    const { admin, runtimeKey, agentId } = await governedAgent(t, await listen(t), 'allow');
    const proxy = await startDroppingProxy(await listen(t));
    try {
      const client = createClient({ baseUrl: proxy.url, apiKey: runtimeKey });
      let runs = 0;
      expect(await client.guard(writeToRepo(agentId), () => (runs += 1))).toBe(1);
      const traces = (await admin.api.GET('/api/v1/traces', { params: { query: { agent_id: agentId, limit: 20, offset: 0 } } })).data!;
      expect(traces.data.map((trace) => trace.final_outcome)).toEqual(['executed']);
    } finally {
      await proxy.close();
    }
  });

  it('a POST the service does not de-duplicate is not retried', async () => {
    const { adminKey, agentId } = await governedAgent(t, await listen(t), 'allow');
    const proxy = await startDroppingProxy(await listen(t));
    try {
      const client = createClient({ baseUrl: proxy.url, apiKey: adminKey });
      const error = await thrown(client.api.POST('/api/v1/agents/{id}/suspend', { params: { path: { id: agentId } } }));
      expect((error as Error).name).toBe('TypeError');
      expect(proxy.connections).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
