import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, type Hash } from 'node:crypto';
import { pipeline, type Readable, Transform } from 'node:stream';
import {
  AppError,
  claimIdempotencyKey,
  idempotencyKeyProblem,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
  type Deps,
} from '@agov/domain';
import { PUBLIC } from '../access.js';
import type { RequestLimits } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A request sent with an `Idempotency-Key` gets the first answer to that key again (plugins/idempotency.ts). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** Set on an idempotent route when the request sends a key. */
    idempotency: IdempotencyState | null;
  }
}

interface IdempotencyState {
  key: string;
  /** SHA-256 of the method, the path as requested and the body's bytes as they arrive. */
  fingerprint: Hash;
  /** Set once this request holds the key: it then stores its answer or lets the key go. */
  claimId: string | null;
}

/**
 * Headers a stored answer leaves out: those that describe this request (its id, where the
 * tenant stands against its rate limit now), and those the connection computes itself.
 */
const NOT_STORED = new Set([
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

/**
 * Idempotent retries (CONTRACT, "Integration decisions"). A route opts in with `config:
 * { idempotent: true }`; a request to it without an `Idempotency-Key` header is not touched.
 * With one, the body's bytes are hashed as they are read; after authentication, parsing and
 * validation, the key is claimed for the tenant, and the request either runs (its answer is
 * stored as it is sent) or is answered at once: the stored answer, byte for byte, with
 * `Idempotent-Replayed: true`; 422 for a key used for another request; 409 while the first
 * is still running. A 5xx is not stored: the key is let go, so a retry does the work; nor is
 * a 429 (a rate limit the handler judges, after the claim): a retry once the window admits it
 * does the work. A request refused before its key is claimed (bad credentials, rate limit,
 * invalid body) uses up nothing, and is refused again the same way when retried.
 */
export function installIdempotency(app: FastifyInstance, deps: Deps, limits: RequestLimits): void {
  app.decorateRequest('idempotency', null);

  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    // A key is claimed in a tenant's name: a route that anyone may call has none.
    if (route.config.access === PUBLIC) throw new Error(`Route ${route.method} ${route.url} is public and cannot be idempotent`);
    route.preParsing = [...hooks(route.preParsing), fingerprintBody];
    route.preHandler = [...hooks(route.preHandler), (request, reply) => claimOrAnswer(deps, limits, request, reply)];
    route.onSend = [...hooks(route.onSend), (request, reply, payload) => storeAnswer(deps, request, reply, payload)];
  });
}

const hooks = <Hook>(given: Hook | Hook[] | undefined): Hook[] => (given === undefined ? [] : Array.isArray(given) ? given : [given]);

async function fingerprintBody(request: FastifyRequest, _reply: FastifyReply, payload: Readable) {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return payload;
  if (typeof key !== 'string') throw invalidKey('must be sent once');
  const problem = idempotencyKeyProblem(key);
  if (problem) throw invalidKey(problem);
  // Neither the method nor a path can hold a line break, so the three parts cannot run into each other.
  const fingerprint = createHash('sha256').update(`${request.method}\n${request.url}\n`);
  request.idempotency = { key, fingerprint, claimId: null };
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      fingerprint.update(chunk);
      done(null, chunk);
    },
  });
  // Errors of the request stream reach the body parser through the stream returned here.
  return pipeline(payload, hashing, () => {});
}

const invalidKey = (problem: string) =>
  new AppError('validation_error', `Invalid header: Idempotency-Key ${problem}`, {
    fields: [{ field: 'Idempotency-Key', message: problem }],
  });

async function claimOrAnswer(deps: Deps, limits: RequestLimits, request: FastifyRequest, reply: FastifyReply) {
  const state = request.idempotency;
  if (!state) return;
  const claim = await claimIdempotencyKey(deps, request.principal, { key: state.key, fingerprint: state.fingerprint.digest('hex') });
  if (claim.kind === 'claimed') {
    state.claimId = claim.claimId;
    return;
  }
  // A replay counts against the rate limit as its first answer did, and is refused as it would be.
  await limits.judgeWaiting(request, reply);
  const { status, headers, body } = claim.answer;
  return reply.code(status).headers(headers).header('idempotent-replayed', 'true').send(body);
}

async function storeAnswer(deps: Deps, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const claimId = request.idempotency?.claimId;
  if (!request.idempotency || !claimId) return payload;
  request.idempotency.claimId = null;
  const { key } = request.idempotency;
  const body = payload === undefined || payload === null ? '' : payload;
  try {
    if (reply.statusCode >= 500 || reply.statusCode === 429 || typeof body !== 'string')
      await releaseIdempotencyKey(deps, request.principal, key, claimId);
    else
      await storeIdempotentAnswer(deps, request.principal, key, claimId, { status: reply.statusCode, headers: storedHeaders(reply), body });
  } catch (error) {
    // The work is done and its answer goes out; the key stays claimed until its lease runs out (README, "Idempotent retries").
    request.log.error({ err: error }, 'could not store the answer to an idempotency key');
  }
  return payload;
}

function storedHeaders(reply: FastifyReply): Record<string, string> {
  const stored: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (!NOT_STORED.has(name) && (typeof value === 'string' || typeof value === 'number')) stored[name] = String(value);
  }
  return stored;
}
