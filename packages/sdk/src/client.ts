import createOpenApiClient, { type Client } from 'openapi-fetch';
import { GovernanceError } from './errors.js';
import { type GuardOptions, guard, type Permit } from './guard.js';
import type { paths } from './generated/openapi.js';
import { type RetryOptions, retryingFetch } from './retry.js';

export interface ClientOptions {
  /** Where the service runs, e.g. `https://governance.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** An API key (`ai_…`) with the scopes of the calls you make. */
  apiKey: string;
  /** A fetch of your own (a proxy, a test double); default the global fetch. */
  fetch?: typeof fetch;
  /** Retries on 429, 503 and network errors; `false` sends every call once. */
  retry?: RetryOptions | false;
}

/** Options every call takes. */
export interface CallOptions {
  /** Cancels the call, its retries and their waits. */
  signal?: AbortSignal;
  /** Your own key for an idempotent POST, e.g. to repeat a call across restarts; default one per call. */
  idempotencyKey?: string;
}

type JsonBody<Operation> = Operation extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;
type Query<Operation> = Operation extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The JSON body of a request, by path and method: `RequestBody<'/api/v1/evaluate', 'post'>`. */
export type RequestBody<Path extends keyof paths, Method extends keyof paths[Path]> = JsonBody<paths[Path][Method]>;
/** The query parameters of a request, by path and method. */
export type QueryParameters<Path extends keyof paths, Method extends keyof paths[Path]> = Query<paths[Path][Method]>;

/** The JSON form of the audit export (the operation also answers CSV, for `format=csv`). */
type AuditExportJson = paths['/api/v1/audit/export']['get']['responses'][200]['content']['application/json'];

/** What the agent asks to do: the body of `POST /api/v1/evaluate`. */
export type Action = RequestBody<'/api/v1/evaluate', 'post'>;

/**
 * A client of the Agent Governance API. Every operation of the contract is callable, typed,
 * through `api` (openapi-fetch over the generated paths: `client.api.GET('/api/v1/agents/{id}',
 * { params: { path: { id } } })`, whose `data` is the response body); the named methods cover
 * what an agent runtime uses, named by their operationId, and return the resource itself (unwrapped from `{data}`) or the
 * flat body. Every error answer is thrown as a `GovernanceError`.
 */
export function createClient(options: ClientOptions) {
  const api: Client<paths> = createOpenApiClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options.fetch ?? globalThis.fetch.bind(globalThis), options.retry),
  });
  api.use({
    async onResponse({ response }) {
      if (!response.ok) throw await GovernanceError.fromResponse(response);
      return undefined;
    },
  });

  const init = (call: CallOptions = {}) => ({
    ...(call.signal ? { signal: call.signal } : {}),
    ...(call.idempotencyKey ? { headers: { 'idempotency-key': call.idempotencyKey } } : {}),
  });

  const calls = {
    api,

    /** Decides an action: `allow`, `approval_required` (with its request) or `deny`. Always records a trace. */
    evaluate: async (action: Action, call?: CallOptions) => data(await api.POST('/api/v1/evaluate', { body: action, ...init(call) })),

    /** Records what happened after an allowed or approved action; closes its trace. */
    recordOutcome: async (traceId: string, outcome: RequestBody<'/api/v1/traces/{traceId}/outcome', 'post'>, call?: CallOptions) => {
      await api.POST('/api/v1/traces/{traceId}/outcome', { params: { path: { traceId } }, body: outcome, ...init(call) });
    },

    /**
     * The approval's status. With `wait` (1–60 s) the service answers as soon as it is
     * decided or expires, or after that long with `pending`.
     */
    getApprovalStatus: async (id: string, call?: CallOptions & { wait?: number }) =>
      data(
        await api.GET('/api/v1/approvals/{id}/status', {
          params: { path: { id }, ...(call?.wait === undefined ? {} : { query: { wait: call.wait } }) },
          ...init(call),
        }),
      ),
    getApproval: async (id: string, call?: CallOptions) =>
      resource(await api.GET('/api/v1/approvals/{id}', { params: { path: { id } }, ...init(call) })),
    approveApproval: async (id: string, decision: RequestBody<'/api/v1/approvals/{id}/approve', 'post'>, call?: CallOptions) =>
      resource(await api.POST('/api/v1/approvals/{id}/approve', { params: { path: { id } }, body: decision, ...init(call) })),
    denyApproval: async (id: string, decision: RequestBody<'/api/v1/approvals/{id}/deny', 'post'>, call?: CallOptions) =>
      resource(await api.POST('/api/v1/approvals/{id}/deny', { params: { path: { id } }, body: decision, ...init(call) })),

    /**
     * The tenant's grant keys (`GET /.well-known/jwks.json`), for `verifyGrant`: fetch once and
     * cache (the service allows 5 minutes); fetch again when a grant names a key not in it.
     */
    fetchJwks: async (tenantId: string, call?: CallOptions) =>
      data(await api.GET('/.well-known/jwks.json', { params: { query: { tenant_id: tenantId } }, ...init(call) })),
    /** Uses a grant, once: a second redeem, or one after it expired, is a 409 `GovernanceError`. */
    redeemGrant: async (jti: string, call?: CallOptions) =>
      resource(await api.POST('/api/v1/grants/{jti}/redeem', { params: { path: { jti } }, ...init(call) })),

    createAgent: async (agent: RequestBody<'/api/v1/agents', 'post'>, call?: CallOptions) =>
      resource(await api.POST('/api/v1/agents', { body: agent, ...init(call) })),
    getAgent: async (id: string, call?: CallOptions) =>
      resource(await api.GET('/api/v1/agents/{id}', { params: { path: { id } }, ...init(call) })),

    createPolicyRule: async (rule: RequestBody<'/api/v1/policies', 'post'>, call?: CallOptions) =>
      resource(await api.POST('/api/v1/policies', { body: rule, ...init(call) })),

    /** The trace with its events: what `verifyTraceExport` checks offline. */
    getTrace: async (traceId: string, call?: CallOptions) =>
      data(await api.GET('/api/v1/traces/{traceId}', { params: { path: { traceId } }, ...init(call) })),
    /** The service's own check of the trace's hash chain, against the head it stores. */
    verifyTrace: async (traceId: string, call?: CallOptions) =>
      data(await api.GET('/api/v1/traces/{traceId}/verify', { params: { path: { traceId } }, ...init(call) })),
    /** The trace as a self-contained file: `verifyTraceExport` checks it offline. */
    exportTrace: async (traceId: string, call?: CallOptions) =>
      data(await api.GET('/api/v1/traces/{traceId}/export', { params: { path: { traceId } }, ...init(call) })),
    /** Audit events recorded in `[from, to]`, as JSON rows. */
    exportAudit: async (query: { from: string; to: string }, call?: CallOptions) =>
      data(await api.GET('/api/v1/audit/export', { params: { query: { ...query, format: 'json' } }, ...init(call) })) as AuditExportJson,
  };

  return {
    ...calls,
    /**
     * Runs `fn` only if the service allows `action`, waiting for a reviewer when it asks for
     * approval, and records the outcome on the action's trace. See guard() in guard.ts.
     */
    guard: <T>(action: Action, fn: (permit: Permit) => T | Promise<T>, guardOptions?: GuardOptions<T>) =>
      guard(calls, action, fn, guardOptions),
  };
}

export type GovernanceClient = ReturnType<typeof createClient>;

/** Errors were thrown by the middleware, so a result that got here is a success. */
function data<T>(result: { data?: T }): T {
  return result.data as T;
}

/** The resource of a `{data: resource}` answer. */
function resource<T>(result: { data?: { data: T } }): T {
  return result.data!.data;
}
