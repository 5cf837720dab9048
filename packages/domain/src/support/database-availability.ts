import { isDatabaseUnavailable } from './db-errors.js';

export interface AvailabilityEvents {
  /** The database stopped answering: once per outage. */
  lost(error: unknown): void;
  /** It answers again, on `server` (host:port), `downMs` after it was lost: once per outage. */
  regained(server: string, downMs: number): void;
  /** Another server answers than before, with no outage seen in between (a quick failover). */
  moved(server: string, previous: string): void;
}

/**
 * Whether this process can reach its database. An error that says the database is
 * unreachable (`isDatabaseUnavailable`) is a hint, not a verdict: a connection cut by a
 * restart that is already over says the same. So the hint starts a probe, which asks which
 * server answers; only when none answers within `deadlineMs` is the database lost, and from
 * then on the probe asks every `probeMs` until one does. So an outage is told once when it
 * starts and once when it ends (naming the server, which after a failover is another host),
 * however many requests failed in between, and `/health` can say so without a request of its
 * own failing first.
 */
export class DatabaseAvailability {
  private lostAt: number | null = null;
  /** The server that answered last, as the probe names it. */
  private server: string | null = null;
  private probing = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly probe: () => Promise<string>,
    private readonly events: AvailabilityEvents,
    private readonly timing: { probeMs: number; deadlineMs: number },
  ) {}

  get available(): boolean {
    return this.lostAt === null;
  }

  /** The server the process connected to at start. */
  connected(server: string): void {
    this.server = server;
  }

  /** Looks at an error some work met; true when it says the database is unavailable. */
  report(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (!this.probing && !this.closed) this.check(error);
    return true;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private check(hint: unknown): void {
    this.probing = true;
    // A probe queued behind connection attempts would wait out a short outage and then succeed,
    // and the outage would go untold: one that has not answered by the deadline has failed.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the database did not answer the probe in time')), this.timing.deadlineMs);
    });
    Promise.race([this.probe(), late])
      .finally(() => clearTimeout(timer))
      .then(
        (server) => {
          this.probing = false;
          const previous = this.server;
          this.server = server;
          if (this.lostAt !== null) {
            const downMs = Date.now() - this.lostAt;
            this.lostAt = null;
            this.events.regained(server, downMs);
          } else if (previous !== null && previous !== server) {
            this.events.moved(server, previous);
          }
        },
        () => {
          if (this.lostAt === null) {
            this.lostAt = Date.now();
            this.events.lost(hint);
          }
          if (this.closed) return;
          this.timer = setTimeout(() => this.check(hint), this.timing.probeMs);
          this.timer.unref();
        },
      );
  }
}
