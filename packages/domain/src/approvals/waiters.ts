import { sql } from 'drizzle-orm';
import type { Database, Tx } from '@agov/db';

/** Channel on which a committed decision or expiry names the approval that left `pending`. */
const APPROVAL_MOVED_CHANNEL = 'agov_approval_moved';

/**
 * Names the approval in a notice sent when the caller's transaction commits, so a waiter in
 * any process hears of the move exactly when it is visible, and never of one rolled back.
 */
export async function announceApprovalMoved(tx: Tx, approvalId: string): Promise<void> {
  await tx.execute(sql`select pg_notify(${APPROVAL_MOVED_CHANNEL}, ${approvalId})`);
}

/** One registration of interest in an approval, made before its status is read. */
export interface ApprovalWatch {
  /** Resolves when a move of the approval is heard, `ms` have passed, or `signal` aborts, whichever is first. */
  next(ms: number, signal?: AbortSignal): Promise<void>;
  stop(): void;
}

/**
 * The requests of this process waiting for approvals to leave `pending`. Waiting costs no
 * database work: a waiter is woken by the notice of a move and only then reads again.
 */
export class ApprovalWaiters {
  private readonly byApproval = new Map<string, Set<() => void>>();
  /** Set while the process shuts down: every wait ends at once with the status it has. */
  private closing = false;

  watch(id: string): ApprovalWatch {
    let wake!: () => void;
    const heard = new Promise<void>((resolve) => {
      wake = resolve;
    });
    if (this.closing) wake();
    const watchers = this.byApproval.get(id) ?? new Set();
    watchers.add(wake);
    this.byApproval.set(id, watchers);
    return {
      next: (ms, signal) =>
        new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, ms);
          signal?.addEventListener('abort', done, { once: true });
          void heard.then(done);
        }),
      stop: () => {
        watchers.delete(wake);
        if (watchers.size === 0 && this.byApproval.get(id) === watchers) this.byApproval.delete(id);
      },
    };
  }

  /** How many requests are waiting now. */
  get size(): number {
    let size = 0;
    for (const watchers of this.byApproval.values()) size += watchers.size;
    return size;
  }

  wake(id: string): void {
    for (const wake of this.byApproval.get(id) ?? []) wake();
  }

  /** Wakes every waiter to read again: notices sent while the listener was away are lost. */
  wakeAll(): void {
    for (const watchers of this.byApproval.values()) for (const wake of watchers) wake();
  }

  /** Ends every wait now and every later one at once, so shutting down never waits for a long poll. */
  close(): void {
    this.closing = true;
    this.wakeAll();
  }

  get closed(): boolean {
    return this.closing;
  }
}

/** Wakes this process's waiters on every move any process commits; resolves to the function that stops. */
export function listenForApprovalMoves(
  database: Database,
  waiters: ApprovalWaiters,
  events: { resubscribed(): void },
): Promise<() => Promise<void>> {
  return database.listen(
    APPROVAL_MOVED_CHANNEL,
    (approvalId) => waiters.wake(approvalId),
    () => {
      events.resubscribed();
      waiters.wakeAll();
    },
  );
}
