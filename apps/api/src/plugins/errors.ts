import type { ConnectionError, FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, codeToStatus, isStatementTimeout, type Deps, type ErrorCode } from '@agov/domain';
import type { ErrorBody } from '../schemas/common.js';
import type { RequestLimits } from './rate-limit.js';

interface FieldProblem {
  field: string;
  message: string;
}

/** How soon a client should try again after a 503: the database is probed about ten times as often. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Every error leaves the service through here, in the spec's shape, with the request id. One
 * that says the database cannot be reached is a 503 the client should retry; the outage is
 * logged once, by `databaseAvailability`, not once per request. A request whose rate limit
 * waits for its handler is judged first, and answered 429 instead when refused.
 */
export function installErrorHandling(app: FastifyInstance, deps: Pick<Deps, 'databaseAvailability'>, limits: RequestLimits): void {
  app.setErrorHandler(async (met: FastifyError | AppError, request, reply) => {
    const error = request.admission
      ? await limits.judgeWaiting(request, reply).then(
          () => met,
          (refusal: AppError) => refusal,
        )
      : met;
    const databaseAway = deps.databaseAvailability.report(error);
    const body = databaseAway
      ? errorBody('service_unavailable', 'The database is unavailable; try again shortly', request.id)
      : toErrorBody(error, request.id);
    if (body.status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    if (body.error === 'rate_limit_exceeded' && body.details) limitHeaders(reply, body.details);
    if (body.status >= 500 && !databaseAway) request.log.error({ err: error }, 'request failed');
    return send(reply, body);
  });
  app.setNotFoundHandler((request, reply) =>
    send(reply, errorBody('not_found', `Route ${request.method} ${request.url.split('?')[0]} not found`, request.id)),
  );
}

/** Every 429 (the rate limiters', sign-in throttling's) carries its figures as headers too. */
function limitHeaders(reply: FastifyReply, { limit, remaining, reset_at, retry_after_seconds }: Record<string, unknown>) {
  reply
    .header('x-ratelimit-limit', limit)
    .header('x-ratelimit-remaining', remaining)
    .header('x-ratelimit-reset', reset_at)
    .header('retry-after', retry_after_seconds);
}

/**
 * Errors Fastify meets before routing, which skip the error handler: give this as the
 * `frameworkErrors` option so they too leave in the spec's shape, with the request id.
 */
export function onFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // The onRequest hooks that set these did not run: no route was found.
  reply.header('x-request-id', request.id).header('cache-control', 'no-store');
  return send(reply, toErrorBody(error, request.id));
}

/**
 * Errors on a connection that no route can answer, given as the `clientErrorHandler` option:
 * the client took longer than `REQUEST_TIMEOUT_MS` to send its request (headers and body), or
 * sent something that is not HTTP. Node hands over the bare socket, so the answer is written
 * by hand, in the spec's shape with a request id of its own, and the connection is closed.
 */
export function clientErrorHandler(logger: FastifyBaseLogger) {
  return (error: ConnectionError, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const body = clientErrorBody(error, randomUUID());
    logger.info({ reqId: body.request_id, code: error.code }, 'client error');
    // As Node does: once a response has begun on this connection, writing another would garble it.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const json = JSON.stringify(body);
      socket.write(
        [
          `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}`,
          'content-type: application/json; charset=utf-8',
          `content-length: ${Buffer.byteLength(json)}`,
          `x-request-id: ${body.request_id}`,
          'cache-control: no-store',
          'connection: close',
          '',
          json,
        ].join('\r\n'),
      );
    }
    socket.destroy(error);
  };
}

function clientErrorBody(error: ConnectionError, requestId: string): ErrorBody {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errorBody('request_timeout', 'The request was not received in time', requestId);
    case 'HPE_HEADER_OVERFLOW':
      return errorBody('payload_too_large', 'Request headers are too large', requestId);
    default:
      return errorBody('validation_error', 'The request is not valid HTTP', requestId);
  }
}

export function errorBody(code: ErrorCode, message: string, requestId: string, details?: Record<string, unknown>): ErrorBody {
  return { error: code, message, status: codeToStatus[code], ...(details ? { details } : {}), request_id: requestId };
}

function send(reply: FastifyReply, body: ErrorBody) {
  return reply.status(body.status).type('application/json; charset=utf-8').send(body);
}

/** The spec's body for any error a request met; a cause the client should not see becomes a bare 500. */
export function toErrorBody(error: FastifyError | AppError, requestId: string): ErrorBody {
  if (error instanceof AppError) {
    return { ...errorBody(error.code, error.message, requestId, error.details), ...(error.traceId ? { trace_id: error.traceId } : {}) };
  }
  if (isStatementTimeout(error)) return errorBody('service_unavailable', 'The database took too long to answer', requestId);
  if ('validation' in error && error.validation) {
    // A malformed id cannot name an existing resource: that is "not found", not bad input.
    if (error.validationContext === 'params') return errorBody('not_found', 'Resource not found', requestId);
    const fields = error.validation.map(toFieldProblem);
    const summary = fields.map((f) => `${f.field} ${f.message}`).join('; ');
    return errorBody('validation_error', `Invalid ${error.validationContext ?? 'request'}: ${summary}`, requestId, { fields });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errorBody('payload_too_large', 'Request body is larger than 1 MiB', requestId);
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // A path that is not valid percent-encoding, or a parameter longer than any id: like a malformed id, it names nothing.
      return errorBody('not_found', 'Resource not found', requestId);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errorBody('validation_error', 'Content-Type must be application/json', requestId);
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) return errorBody('internal_error', 'Internal server error', requestId);
  const code = FRAMEWORK_CODES[status] ?? 'validation_error';
  return errorBody(code, status === 400 ? `Invalid request: ${error.message}` : error.message, requestId);
}

/**
 * The code of any other error Fastify or a plugin raises, by its status: written out, not read
 * backwards from codeToStatus, where 413 is also `export_too_large`, which only a refused
 * export is. A 4xx status not listed reads as 400 `validation_error`.
 */
const FRAMEWORK_CODES: Readonly<Partial<Record<number, ErrorCode>>> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'request_timeout',
  409: 'conflict',
  // A body refused for its size, as Fastify's own above (CONTRACT: 413; the spec names no code for it).
  413: 'payload_too_large',
  // A body refused for its media type, as Fastify's own above: the spec has no 415, so bad input.
  415: 'validation_error',
  429: 'rate_limit_exceeded',
};

interface AjvProblem {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function toFieldProblem(problem: AjvProblem): FieldProblem {
  const base = problem.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const join = (name: unknown) => (base ? `${base}.${String(name)}` : String(name));
  if (problem.keyword === 'required') return { field: join(problem.params.missingProperty), message: 'is required' };
  if (problem.keyword === 'additionalProperties') return { field: join(problem.params.additionalProperty), message: 'is not allowed' };
  // The field that picks a shape (a change's `action`): missing, or none of the shapes' values.
  if (problem.keyword === 'discriminator') {
    const { tag, tagValue } = problem.params;
    if (tagValue === undefined) return { field: join(tag), message: 'is required' };
    return { field: join(tag), message: problem.params.error === 'tag' ? 'must be string' : 'must be equal to one of the allowed values' };
  }
  return { field: base || '(body)', message: problem.message ?? 'is invalid' };
}
