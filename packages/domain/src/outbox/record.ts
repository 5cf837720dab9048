import { and, eq, sql } from 'drizzle-orm';
import { outbox, type Executor } from '@agov/db';
import { type DueEffect, type Effect, type EffectPayloads, outboxRows, type RetriedKind } from './effects.js';
import { afterAttempt, type AttemptOutcome } from './retry.js';

/**
 * Records effects in the caller's transaction: they exist exactly when the change that causes
 * them commits, so a dead queue or worker delays them but never loses them.
 */
export async function recordEffects(executor: Executor, tenantId: string, effects: readonly Effect[], now: Date): Promise<void> {
  if (effects.length > 0) await executor.insert(outbox).values(outboxRows(tenantId, effects, now));
}

/** The effect is done: its row goes, so the table holds only work still to do. */
export async function completeEffect(executor: Executor, id: string): Promise<void> {
  await executor.delete(outbox).where(eq(outbox.id, id));
}

/** The effect is due again at `at` (a retry, or a time not yet reached). */
export async function postponeEffect(executor: Executor, id: string, at: Date, lastError: string | null = null): Promise<void> {
  await executor.update(outbox).set({ availableAt: at, lastError }).where(eq(outbox.id, id));
}

/**
 * Failed attempts at an effect retried like a webhook (e-mail, chat cards), as its job was
 * given them. Kept in the payload rather than read from `attempts`, which counts claims, and
 * so also the claims handed back while the queue was unreachable: those would use up the
 * retries of an effect never tried.
 */
const failedAttemptsOf = (effect: DueEffect<RetriedKind>): number => effect.payload.failed_attempts ?? 0;

/** The row as this run of the job found it: gone or moved on means another run finished or recorded this attempt. */
const asGiven = (effect: DueEffect<RetriedKind>) =>
  and(eq(outbox.id, effect.id), sql`coalesce((${outbox.payload}->>'failed_attempts')::int, 0) = ${failedAttemptsOf(effect)}`);

/** Whether this attempt is still to be made: false for a stray duplicate of a run that already made it. */
export async function isAttemptDue(executor: Executor, effect: DueEffect<RetriedKind>): Promise<boolean> {
  return (await executor.select({ id: outbox.id }).from(outbox).where(asGiven(effect))).length > 0;
}

/**
 * Records a failed attempt on the webhook schedule: due again after the next delay, or given
 * up (the row retired) after the last. Only the run that was given this attempt records it.
 * `progress` joins the payload, for the next attempt to skip what this one did.
 */
export async function recordFailedAttempt<K extends RetriedKind>(
  executor: Executor,
  effect: DueEffect<K>,
  failure: { error: string; retryDelaysMs: readonly number[]; now: Date; progress?: Partial<EffectPayloads[K]> },
): Promise<AttemptOutcome> {
  const next = afterAttempt(failedAttemptsOf(effect), false, failure.retryDelaysMs, failure.now);
  if (next.nextRetryAt === null) await executor.delete(outbox).where(asGiven(effect));
  else
    await executor
      .update(outbox)
      .set({
        payload: { ...effect.payload, ...failure.progress, failed_attempts: next.attempts },
        availableAt: next.nextRetryAt,
        lastError: failure.error,
      })
      .where(asGiven(effect));
  return next;
}
