import type { Progress, ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/** How often a call waiting for a reviewer tells the client it is still alive. */
export const WAIT_PROGRESS_INTERVAL_MS = 5_000;

/**
 * The progress notifications of one tool call, when its client asked for them: while it waits
 * for a reviewer (so the client keeps the request open), then the downstream tool's own,
 * renumbered after the wait's so that `progress` only ever increases, as MCP requires.
 */
export class CallProgress {
  private sent = 0;
  private base = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly token: ProgressToken | undefined,
    private readonly send: (notification: ServerNotification) => Promise<void>,
  ) {}

  waitingForApproval(link: string, waitMs: number): void {
    if (this.token === undefined) return;
    const started = Date.now();
    const total = Math.ceil(waitMs / 1000);
    const tell = () => {
      const waited = Math.floor((Date.now() - started) / 1000);
      this.notify({
        progress: this.sent + 1,
        total: Math.max(total, this.sent + 1),
        message: `Waiting for a reviewer's decision (${waited} s of at most ${total} s): ${link}`,
      });
    };
    tell();
    this.timer = setInterval(tell, WAIT_PROGRESS_INTERVAL_MS);
    this.timer.unref();
  }

  /** The wait is over: later progress comes from the tool. */
  stopWaiting(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.base = this.sent;
  }

  /** Passes the downstream tool's progress on, if the client asked for progress. */
  readonly relay = (progress: Progress): void => {
    if (this.token === undefined) return;
    const value = this.base + progress.progress;
    if (value <= this.sent) return;
    this.notify({ ...progress, progress: value, ...(progress.total !== undefined && { total: this.base + progress.total }) });
  };

  get wanted(): boolean {
    return this.token !== undefined;
  }

  private notify(progress: Progress): void {
    this.sent = progress.progress;
    // A client that went away cannot be told; the call itself notices through its signal.
    this.send({ method: 'notifications/progress', params: { ...progress, progressToken: this.token! } }).catch(() => undefined);
  }
}
