import { type Access, AUDIT_EXPORT_COLUMNS, codeToStatus, type ErrorCode, TRACE_EXPORT_COLUMNS } from '@agov/domain';
import { PUBLIC, type RouteAccess } from '../access.js';
import { OPERATIONS } from './operations.js';
import { exampleOf } from './examples.js';

/** What the document needs to know of a route beyond its schema, gathered as routes are registered. */
export interface RouteFacts {
  access: RouteAccess;
  /** Counted against a rate limit (`config.rateLimit !== false`). */
  rateLimited: boolean;
  /** Takes an `Idempotency-Key` header (`config.idempotent`, plugins/idempotency.ts). */
  idempotent: boolean;
}

type Json = Record<string, unknown>;
interface Response {
  description: string;
  headers?: Json;
  content?: Record<string, { schema?: Json; example?: unknown }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Json[];
  requestBody?: { content: Record<string, { schema?: Json; example?: unknown }> };
  responses: Record<string, Response>;
  security?: Json[];
  [extension: `x-${string}`]: unknown;
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Json> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const HEADER = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Routes that never touch the database: they cannot answer 503. */
const WITHOUT_DATABASE = new Set(['getHealth']);

/** The headers the service sends, declared once and referenced from each response. */
export const HEADERS = {
  XRequestId: {
    description:
      "The request's id: the caller's own `X-Request-Id` when it is safe to echo, else one minted for it. Also in every error body.",
    required: true,
    schema: { type: 'string' },
  },
  XRateLimitLimit: { description: 'Requests a minute the counted allowance admits.', schema: { type: 'integer' } },
  XRateLimitRemaining: { description: 'Requests left in the sliding 60-second window.', schema: { type: 'integer' } },
  XRateLimitReset: {
    description: 'When the window will have forgotten every counted request (Unix seconds).',
    schema: { type: 'integer' },
  },
  RetryAfter: { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'integer' } },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  ContentDisposition: { description: 'The download\'s file name: `attachment; filename="…"`.', schema: { type: 'string' } },
  XTotalCount: { description: 'The number of rows in the export.', schema: { type: 'integer' } },
};

const HEADER_NAMES: Record<keyof typeof HEADERS, string> = {
  XRequestId: 'X-Request-Id',
  XRateLimitLimit: 'X-RateLimit-Limit',
  XRateLimitRemaining: 'X-RateLimit-Remaining',
  XRateLimitReset: 'X-RateLimit-Reset',
  RetryAfter: 'Retry-After',
  IdempotentReplayed: 'Idempotent-Replayed',
  ContentDisposition: 'Content-Disposition',
  XTotalCount: 'X-Total-Count',
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: within 24 h the same key with the same method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and does nothing more. The same key with another request is 422 `idempotency_key_reused`; one still being processed is 409 `conflict`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid: `details.fields` names each problem (a body that is not JSON is also 400).',
  401: 'No credential, or one that is invalid, expired or revoked.',
  403: "The credential may not do this. A missing scope: `details: {required_scope, scopes}` (the key's scopes); a missing role: `details: {required_role, role}`. A session's change without `X-Requested-With: XMLHttpRequest` is refused too.",
  404: 'No such resource in this tenant (a malformed id names none either).',
  409: 'The resource is not in a state that allows this, or a request with this `Idempotency-Key` is still being processed.',
  413: 'The body is too large (1 MiB), or the export has more rows than the service exports at once.',
  422: 'This `Idempotency-Key` was used for another request.',
  429: 'Over the rate limit: the `X-RateLimit-*` headers and `Retry-After` say when to try again; `details` gives the figures.',
  501: 'The payment provider is not configured on this installation.',
  503: 'The database (or a provider the operation needs) is unavailable: retry after `Retry-After` seconds.',
};

const FORBIDDEN_DETAILS = {
  oneOf: [
    {
      type: 'object',
      required: ['required_scope', 'scopes'],
      properties: { required_scope: { type: ['string', 'null'] }, scopes: { type: 'array', items: { type: 'string' } } },
    },
    {
      type: 'object',
      required: ['required_role', 'role'],
      properties: { required_role: { type: ['string', 'null'] }, role: { type: ['string', 'null'] } },
    },
  ],
};

/** Access that admits every credential of the tenant, whatever it may do. */
const admitsEveryone = (access: Access) => access.scope === 'any' && access.roles === 'any';

/** The codes an operation can answer: those of its kind, derived from the route, and those its domain code raises. */
function errorCodes(method: string, path: string, operation: Operation, facts: RouteFacts): Set<ErrorCode> {
  const text = OPERATIONS[operation.operationId ?? ''];
  const codes = new Set<ErrorCode>(text?.errors ?? []);
  // Every query string is read, a route's own parameters or not: one the service cannot take
  // (a control character in a name, say) is a validation error on any operation.
  codes.add('validation_error');
  if (facts.access !== PUBLIC) {
    codes.add('unauthorized');
    // A session's change needs the CSRF header even where every credential is admitted.
    if (!admitsEveryone(facts.access) || method !== 'get') codes.add('forbidden');
  }
  if (path.includes('{')) codes.add('not_found');
  if (method !== 'get') codes.add('payload_too_large');
  if (facts.rateLimited) codes.add('rate_limit_exceeded');
  if (!WITHOUT_DATABASE.has(operation.operationId ?? '')) codes.add('service_unavailable');
  if (facts.idempotent) {
    codes.add('conflict');
    codes.add('idempotency_key_reused');
  }
  return codes;
}

function errorResponse(status: number, codes: ErrorCode[]): Response {
  const narrowed: Json = { error: { type: 'string', enum: codes } };
  if (status === 403) narrowed.details = FORBIDDEN_DETAILS;
  const headers: Json = { 'X-Request-Id': HEADER('XRequestId') };
  if (status === 429) Object.assign(headers, rateLimitHeaders(), { 'Retry-After': HEADER('RetryAfter') });
  if (status === 503) headers['Retry-After'] = HEADER('RetryAfter');
  return {
    description: `${ERROR_DESCRIPTIONS[status] ?? 'An error.'} Codes: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
    headers,
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: narrowed }] },
        example: {
          error: codes[0],
          message: ERROR_DESCRIPTIONS[status]?.split(/[.:]/)[0] ?? 'An error',
          status,
          request_id: '0b6f5c2e-8d4a-4f2b-9a61-3c7d2e1f5a90',
        },
      },
    },
  };
}

const rateLimitHeaders = () => ({
  'X-RateLimit-Limit': HEADER('XRateLimitLimit'),
  'X-RateLimit-Remaining': HEADER('XRateLimitRemaining'),
  'X-RateLimit-Reset': HEADER('XRateLimitReset'),
});

/** Who may call, in words and as the security requirement. */
function accessOf(access: RouteAccess): { words: string; security: Json[]; extensions: Json } {
  if (access === PUBLIC) return { words: 'No credential.', security: [], extensions: {} };
  const scope =
    access.scope === null ? null : access.scope === 'any' ? 'any API key' : `an API key with the \`${access.scope}\` scope (or \`admin\`)`;
  const roles =
    access.roles === null
      ? null
      : access.roles === 'any'
        ? 'a session of any role'
        : `a session with the ${access.roles.map((r) => `\`${r}\``).join(' or ')} role`;
  const security = [...(scope ? [{ apiKey: [] }] : []), ...(roles ? [{ session: [] }] : [])];
  const extensions: Json = {};
  if (access.scope !== null) extensions['x-required-scope'] = access.scope;
  if (access.roles !== null) extensions['x-required-roles'] = access.roles;
  return { words: `Who may call: ${[scope, roles].filter(Boolean).join(', or ')}.`, security, extensions };
}

/**
 * Finishes the document @fastify/swagger generates from the route schemas: each operation's words
 * from the catalogue, who may call it, every status it answers with the headers sent, examples,
 * and each titled schema as a named component.
 */
export function finishDocument<T extends object>(generated: T, facts: ReadonlyMap<string, RouteFacts>): T {
  const document = generated as Document;
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = operations[method];
      if (!operation) continue;
      const id = operation.operationId ?? `${method.toUpperCase()} ${path}`;
      const text = OPERATIONS[id];
      const routeFacts = facts.get(id);
      if (!text || !routeFacts) throw new Error(`Operation ${id} is not in the OpenAPI catalogue (apps/api/src/openapi/operations.ts)`);
      const access = accessOf(routeFacts.access);
      operation.summary = text.summary;
      operation.description = `${text.description}\n\n${access.words}`;
      operation.security = access.security;
      Object.assign(operation, access.extensions);
      if (routeFacts.idempotent) operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        if (media.schema && media.example === undefined) media.example = exampleOf(media.schema);
      }
      const download = DOWNLOADS[id];
      if (download) {
        operation.responses['200'] = {
          ...operation.responses['200'],
          description: 'The file, as an attachment.',
          ...(download.content ? { content: download.content } : {}),
          headers: Object.fromEntries(download.headers.map((name) => [HEADER_NAMES[name], HEADER(name)])),
        };
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        describeSuccess(response, status, routeFacts);
      }
      const byStatus = new Map<number, ErrorCode[]>();
      for (const code of errorCodes(method, path, operation, routeFacts)) {
        byStatus.set(codeToStatus[code], [...(byStatus.get(codeToStatus[code]) ?? []), code]);
      }
      for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) operation.responses[status] = errorResponse(status, codes);
      operation.responses.default = {
        description: 'Any other error (a request that took too long to send is 408; a fault of the service, 500), in the same shape.',
        headers: { 'X-Request-Id': HEADER('XRequestId') },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
  }
  extractComponents(document);
  return generated;
}

const csv = (columns: readonly string[]) => ({ schema: { type: 'string' }, example: `${columns.join(',')}\r\n` });

/** The downloads: files sent with their name, the bulk ones streamed as CSV or a JSON array, with their row count. */
const DOWNLOADS: Record<string, { headers: (keyof typeof HEADERS)[]; content?: Response['content'] }> = {
  exportTrace: { headers: ['ContentDisposition'] },
  exportTraces: { headers: ['ContentDisposition', 'XTotalCount'], content: { 'text/csv': csv(TRACE_EXPORT_COLUMNS) } },
  exportAudit: {
    headers: ['ContentDisposition', 'XTotalCount'],
    content: {
      'application/json': {
        schema: {
          type: 'array',
          items: { $ref: '#/components/schemas/AuditEvent' },
        },
        example: [],
      },
      'text/csv': csv(AUDIT_EXPORT_COLUMNS),
    },
  },
};

const SUCCESS_DESCRIPTIONS: Record<string, string> = { '200': 'OK', '201': 'Created', '204': 'No content' };

function describeSuccess(response: Response, status: string, facts: RouteFacts) {
  if (response.description === 'Default Response') response.description = SUCCESS_DESCRIPTIONS[status] ?? 'Success';
  response.headers = {
    ...response.headers,
    'X-Request-Id': HEADER('XRequestId'),
    ...(facts.rateLimited || facts.access !== PUBLIC ? rateLimitHeaders() : {}),
    ...(facts.idempotent ? { 'Idempotent-Replayed': HEADER('IdempotentReplayed') } : {}),
  };
  for (const media of Object.values(response.content ?? {})) {
    if (media.schema && media.example === undefined) media.example = exampleOf(media.schema);
  }
}

/**
 * A discriminator's mapping from each value of its field to the branch it picks: in OpenAPI a
 * value with no mapping names a schema, and ours are values like `create`. The validator reads
 * the branches' own `const`, so the mapping is written in the document only.
 */
function withMapping(union: Json, schemas: Record<string, Json>): Json {
  const { propertyName } = union.discriminator as { propertyName: string };
  const mapping = Object.fromEntries(
    (union.oneOf as { $ref: string }[]).map(({ $ref }) => {
      const branch = schemas[$ref.replace('#/components/schemas/', '')] as {
        properties: Record<string, { enum?: string[]; const?: string }>;
      };
      const tag = branch.properties[propertyName]!;
      return [tag.const ?? tag.enum![0], $ref];
    }),
  );
  return { propertyName, mapping };
}

/** Every schema with a `title` becomes `#/components/schemas/<title>`, referenced wherever it appears. */
function extractComponents(document: Document): void {
  const components = document.components ?? {};
  const schemas: Record<string, Json> = components.schemas ?? {};
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const object = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)])) as Json;
    if (object.discriminator && Array.isArray(object.oneOf)) object.discriminator = withMapping(object, schemas);
    const title = object.title;
    if (typeof title !== 'string' || !looksLikeSchema(object)) return object;
    const { title: _name, ...body } = object;
    const known = schemas[title];
    if (known && JSON.stringify(withoutExamples(known)) !== JSON.stringify(withoutExamples(body)))
      throw new Error(`Two different schemas are titled ${title}`);
    if (!known || (body.examples && !known.examples)) schemas[title] = body;
    return { $ref: `#/components/schemas/${title}` };
  };
  document.paths = visit(document.paths) as Document['paths'];
  document.components = components;
  components.schemas = Object.fromEntries(Object.entries(visit(schemas) as Record<string, Json>).sort(([a], [b]) => a.localeCompare(b)));
}

const looksLikeSchema = (node: Json) => 'type' in node || 'anyOf' in node || 'oneOf' in node || 'allOf' in node;
const withoutExamples = ({ examples: _examples, ...rest }: Json) => rest;
