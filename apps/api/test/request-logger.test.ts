import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../src/request-logger.js';
import { request, useTestApp } from './harness.js';

/** A pino logger at `level` that redacts tokens, and the lines it wrote. */
function collecting(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level, redact: { paths: ['*.token'], censor: '[redacted]' } },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  return { logger, lines };
}

describe('a request’s logger', () => {
  it('writes what its level lets through, with its bindings, redacted', () => {
    const { logger, lines } = collecting('warn');
    const log = lazyRequestLogger(logger, { reqId: 'r-1', caller: { token: 'secret-token' } }, {});

    log.info('not written');
    log.debug({ detail: 1 }, 'nor this');
    log.warn({ detail: 2 }, 'written');
    log.error('this too');

    expect(lines.map(({ msg, reqId, caller, detail }) => ({ msg, reqId, caller, detail }))).toEqual([
      { msg: 'written', reqId: 'r-1', caller: { token: '[redacted]' }, detail: 2 },
      { msg: 'this too', reqId: 'r-1', caller: { token: '[redacted]' }, detail: undefined },
    ]);
  });

  it('follows a level set on it, and one given for the request', () => {
    const { logger, lines } = collecting('warn');
    const log = lazyRequestLogger(logger, { reqId: 'r-2' }, {});
    expect(log.level).toBe('warn');
    log.level = 'debug';
    log.debug('now written');
    expect(log.level).toBe('debug');
    expect(logger.level).toBe('warn');

    lazyRequestLogger(logger, { reqId: 'r-3' }, { level: 'trace' }).trace('the request’s own level');
    const child = lazyRequestLogger(logger, { reqId: 'r-4' }, {}).child({ step: 'inner' });
    child.warn('from a child');

    expect(lines.map(({ msg, reqId, step }) => ({ msg, reqId, step }))).toEqual([
      { msg: 'now written', reqId: 'r-2', step: undefined },
      { msg: 'the request’s own level', reqId: 'r-3', step: undefined },
      { msg: 'from a child', reqId: 'r-4', step: 'inner' },
    ]);
  });
});

describe('request logs through the app', () => {
  const t = useTestApp({ env: { LOG_LEVEL: 'info' } });

  it('carry the request id the answer names', async () => {
    const before = t.logs.length;
    const response = await request(t.app, null, { method: 'GET', url: '/health', headers: { 'x-request-id': 'logged-request-1' } });
    expect(response.headers['x-request-id']).toBe('logged-request-1');
    const lines = t.logs
      .slice(before)
      .flatMap((chunk) => chunk.split('\n').filter(Boolean))
      .map((line) => JSON.parse(line) as { msg: string; reqId?: string });
    expect(lines.filter((line) => line.reqId === 'logged-request-1').map((line) => line.msg)).toEqual([
      'incoming request',
      'request completed',
    ]);
  });
});
