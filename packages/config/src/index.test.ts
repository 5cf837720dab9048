import { describe, expect, it } from 'vitest';
import { loadConfig } from './index.js';

/*
 * The defaults the spec and the CONTRACT give, with nothing set: every test app and process sets
 * its own short timers, so only these tests see the ones a deployment runs with.
 */
describe('loadConfig with nothing set', () => {
  const config = loadConfig({});

  it("retries a failed webhook after the spec's 1 minute, 5 minutes, 30 minutes and 2 hours: 5 attempts in all", () => {
    expect(config.webhookRetryDelaysMs).toEqual([60_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('gives the timers and limits the CONTRACT names their defaults', () => {
    expect({
      mode: config.mode,
      host: config.host,
      port: config.port,
      webhookTimeoutMs: config.webhookTimeoutMs,
      approvalExpirySweepMs: config.approvalExpirySweepMs,
      auditBatchIntervalMs: config.auditBatchIntervalMs,
      requestTimeoutMs: config.requestTimeoutMs,
      databaseStatementTimeoutMs: config.databaseStatementTimeoutMs,
      publicUrl: config.publicUrl,
      slackApiUrl: config.slackApiUrl,
      dataDir: config.dataDir,
      migrateOnStart: config.migrateOnStart,
      exportMaxRows: config.exportMaxRows,
      simulateMaxEvaluations: config.simulateMaxEvaluations,
      trustProxy: config.trustProxy,
      rateLimits: config.rateLimits,
    }).toEqual({
      mode: 'production',
      host: '127.0.0.1',
      port: 4000,
      webhookTimeoutMs: 10_000,
      approvalExpirySweepMs: 30_000,
      auditBatchIntervalMs: 300_000,
      requestTimeoutMs: 30_000,
      databaseStatementTimeoutMs: 15_000,
      publicUrl: 'http://127.0.0.1:4000',
      slackApiUrl: 'https://slack.com/api',
      dataDir: './.data',
      migrateOnStart: true,
      exportMaxRows: 100_000,
      simulateMaxEvaluations: 1_000_000,
      trustProxy: false,
      // Per tenant the plan decides; per client address 30 a minute.
      rateLimits: { evaluate: null, read: null, write: null, unauthenticated: 30, chatCallback: 600 },
    });
  });

  it('takes an empty WEBHOOK_RETRY_DELAYS_MS as unset, and a list as given', () => {
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '' }).webhookRetryDelaysMs).toEqual([60_000, 300_000, 1_800_000, 7_200_000]);
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '100, 200' }).webhookRetryDelaysMs).toEqual([100, 200]);
  });
});

describe('API_PROCESSES', () => {
  const shared = { DATABASE_URL: 'postgres://localhost/agov', REDIS_URL: 'redis://localhost:6379' };

  it('is 1 when unset, and any count from 1 to 64 on a PostgreSQL server with Redis', () => {
    expect(loadConfig({}).apiProcesses).toBe(1);
    expect(loadConfig({ API_PROCESSES: '1' }).apiProcesses).toBe(1);
    expect(loadConfig({ ...shared, API_PROCESSES: '2' }).apiProcesses).toBe(2);
    expect(loadConfig({ ...shared, API_PROCESSES: '64' }).apiProcesses).toBe(64);
  });

  it('refuses a count outside 1 to 64', () => {
    for (const count of ['0', '65', '1.5', 'two']) {
      expect(() => loadConfig({ ...shared, API_PROCESSES: count })).toThrow(`Invalid configuration: API_PROCESSES`);
    }
  });

  it('refuses more than one process on embedded PostgreSQL or without Redis, naming what is missing', () => {
    expect(() => loadConfig({ REDIS_URL: shared.REDIS_URL, API_PROCESSES: '2' })).toThrow(
      'Invalid configuration: API_PROCESSES above 1 needs DATABASE_URL: embedded PostgreSQL belongs to one process',
    );
    expect(() => loadConfig({ DATABASE_URL: shared.DATABASE_URL, API_PROCESSES: '2' })).toThrow(
      'Invalid configuration: API_PROCESSES above 1 needs REDIS_URL',
    );
  });
});
