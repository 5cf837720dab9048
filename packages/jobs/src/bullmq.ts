import { Queue, Worker } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { EFFECT_JOBS, PERIODIC_JOBS, QUEUES, type HandledKind, type PeriodicJob, type QueueName } from './catalog.js';
import { CONCURRENCY, type Consumers, type JobBackend } from './backend.js';
import { DatabaseAway } from './dispatch.js';
import { dueEffect, type DueEffect } from '@agov/domain';

export interface BullmqOptions {
  redisUrl: string;
  prefix: string;
  /** The outbox lease; a job's lock is shorter, so BullMQ recovers a stalled job first. */
  leaseMs: number;
  logger: Logger;
}

/** What a job carries: the outbox row's id and the ids it concerns (secrets are read when it runs). */
type EffectData = Omit<DueEffect, 'kind'>;
/** Periodic jobs carry nothing. */
type JobData = EffectData | Record<string, never>;

/** How often each periodic job's scheduler is checked for in Redis. */
const SCHEDULE_CHECK_MS = 5_000;

// Our retries live in the outbox, not in BullMQ: a finished or failed job has nothing to keep.
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true };

/**
 * BullMQ on Redis, set up as its production guide advises: producers fail fast rather than
 * queue commands while Redis is away (the outbox keeps the work), workers retry their
 * connection forever, every client has an error listener, stalled jobs are recovered.
 */
export function bullmqBackend({ redisUrl, prefix, leaseMs, logger }: BullmqOptions): JobBackend {
  const reportError = onceUntilReady(logger.child({ component: 'queue' }));
  const connect = (options: RedisOptions) => {
    const connection = new Redis(redisUrl, options);
    connection.on('error', reportError).on('ready', () => reportError.reset());
    connections.push(connection);
    return connection;
  };
  const connections: Redis[] = [];
  const producer = connect({ enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  const queues = new Map(QUEUES.map((name) => [name, new Queue<JobData>(name, { connection: producer, prefix }).on('error', reportError)]));
  const workers: Worker[] = [];
  // Redis may come back empty (restarted without persistence) or lose its data while connected
  // (flushed): the timers are set again on every reconnect, and any found missing is set again.
  const schedules = new Map<PeriodicJob, number>();
  const upsertSchedule = (job: PeriodicJob, everyMs: number) =>
    queue(PERIODIC_JOBS[job].queue).upsertJobScheduler(job, { every: everyMs }, { name: job, data: {}, opts: JOB_OPTIONS });
  producer.on('ready', () => {
    for (const [job, everyMs] of schedules) upsertSchedule(job, everyMs).catch(reportError);
  });
  const restoreMissingSchedules = async () => {
    for (const [job, everyMs] of schedules) {
      if (!(await queue(PERIODIC_JOBS[job].queue).getJobScheduler(job))) await upsertSchedule(job, everyMs);
    }
  };
  const scheduleCheck = setInterval(() => restoreMissingSchedules().catch(reportError), SCHEDULE_CHECK_MS).unref();
  const lockDuration = Math.max(500, Math.floor(leaseMs / 2));

  const queue = (name: QueueName) => queues.get(name)!;

  return {
    async enqueue(effects) {
      const byQueue = new Map<QueueName, DueEffect<HandledKind>[]>();
      for (const effect of effects) {
        const name = EFFECT_JOBS[effect.kind].queue;
        byQueue.set(name, [...(byQueue.get(name) ?? []), effect]);
      }
      // The job id is the outbox row's id: handing the same row on twice queues it once.
      await Promise.all(
        [...byQueue].map(([name, batch]) =>
          queue(name).addBulk(batch.map(({ kind, ...data }) => ({ name: kind, data, opts: { ...JOB_OPTIONS, jobId: data.id } }))),
        ),
      );
    },

    async consume(consumers: Consumers) {
      for (const name of QUEUES) {
        const worker = new Worker<JobData>(
          name,
          async (job) => {
            if (job.name in PERIODIC_JOBS) return consumers.periodic(job.name as PeriodicJob);
            return consumers.effect(dueEffect({ ...(job.data as EffectData), kind: job.name as HandledKind }));
          },
          {
            connection: connect({ maxRetriesPerRequest: null }),
            prefix,
            concurrency: CONCURRENCY[name],
            lockDuration,
            stalledInterval: lockDuration,
            maxStalledCount: 1,
          },
        );
        worker.on('error', reportError);
        worker.on('failed', (job, error) => {
          if (!(error instanceof DatabaseAway))
            logger.warn({ err: error, job: job?.name, queue: name }, 'job failed; its effect comes due again');
        });
        workers.push(worker);
      }
    },

    async schedule(job, everyMs) {
      schedules.set(job, everyMs);
      await upsertSchedule(job, everyMs);
    },

    async depths() {
      const counts = await Promise.all(QUEUES.map((name) => queue(name).getJobCounts('waiting', 'prioritized', 'delayed')));
      return Object.fromEntries(QUEUES.map((name, i) => [name, Object.values(counts[i]!).reduce((sum, n) => sum + n, 0)])) as Record<
        QueueName,
        number
      >;
    },

    async close() {
      clearInterval(scheduleCheck);
      // Running jobs finish; unstarted ones stay in Redis for the next worker.
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
      // Connections handed to BullMQ stay ours to close.
      await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
    },
  };
}

/**
 * An unhandled 'error' event would crash the process, and a client retrying a lost Redis
 * reports every failed attempt: log the first, then nothing until a connection is back.
 */
function onceUntilReady(logger: Logger): ((error: Error) => void) & { reset(): void } {
  let reported = false;
  const report = (error: Error) => {
    if (!reported) logger.error({ err: error }, 'redis unavailable; effects wait in the outbox');
    reported = true;
  };
  return Object.assign(report, {
    reset() {
      if (reported) logger.info('redis available again');
      reported = false;
    },
  });
}
