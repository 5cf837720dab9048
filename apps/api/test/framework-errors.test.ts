import type { FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { toErrorBody } from '../src/plugins/errors.js';

/** An error as Fastify or a plugin raises it: a code of its own, a message and a status. */
const frameworkError = (statusCode: number, message = 'said by the framework', code = 'FST_ERR_SOMETHING') =>
  Object.assign(new Error(message), { code, statusCode }) as FastifyError;

describe('errors raised by Fastify or a plugin', () => {
  it.each([
    [401, 'unauthorized', 401],
    [403, 'forbidden', 403],
    [404, 'not_found', 404],
    [408, 'request_timeout', 408],
    [409, 'conflict', 409],
    [413, 'payload_too_large', 413],
    [415, 'validation_error', 400],
    [429, 'rate_limit_exceeded', 429],
    [405, 'validation_error', 400],
    [422, 'validation_error', 400],
  ])('read a status %i as %s (%i), in their own words', (statusCode, error, status) => {
    expect(toErrorBody(frameworkError(statusCode), 'req-1')).toEqual({
      error,
      message: 'said by the framework',
      status,
      request_id: 'req-1',
    });
  });

  it('never read a 413 as export_too_large, which only a refused export is', () => {
    expect(toErrorBody(frameworkError(413), 'req-1').error).toBe('payload_too_large');
  });

  it('say which request was bad for a 400', () => {
    expect(toErrorBody(frameworkError(400, 'Body cannot be empty'), 'req-1')).toEqual({
      error: 'validation_error',
      message: 'Invalid request: Body cannot be empty',
      status: 400,
      request_id: 'req-1',
    });
  });

  it('hide what a 5xx says', () => {
    expect(toErrorBody(frameworkError(503, 'handler timed out'), 'req-1')).toEqual({
      error: 'internal_error',
      message: 'Internal server error',
      status: 500,
      request_id: 'req-1',
    });
  });

  it.each([
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'payload_too_large', 'Request body is larger than 1 MiB', 413],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'validation_error', 'Content-Type must be application/json', 400],
    ['FST_ERR_BAD_URL', 400, 'not_found', 'Resource not found', 404],
    ['FST_ERR_MAX_PARAM_LENGTH', 414, 'not_found', 'Resource not found', 404],
  ])('put Fastify’s %s in words of the API', (code, statusCode, error, message, status) => {
    expect(toErrorBody(frameworkError(statusCode, 'Fastify’s words', code), 'req-1')).toEqual({
      error,
      message,
      status,
      request_id: 'req-1',
    });
  });
});
