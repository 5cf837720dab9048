/** What a delivery to an endpoint may do now (see EndpointBreaker). */
export type Admission = 'send' | 'probe' | 'hold' | 'refuse';

interface Trouble {
  /** A delivery is out to learn whether the endpoint answers again. */
  probing: boolean;
  /** Until when deliveries fail without a request; in the past, the next delivery probes. */
  refusedUntilMs: number;
}

/**
 * Keeps an endpoint that does not answer from taking this process's delivery slots. A job's
 * slot stays taken until its slowest post answers or times out, so an endpoint that hangs
 * while its tenant's events keep coming would otherwise take every slot, and every other
 * tenant's webhooks would wait behind it.
 *
 * Once a post to an endpoint times out, one delivery at a time probes it, and the others to
 * it are held: not attempted, their job due again shortly. A probe that gets any answer
 * makes the endpoint trusted again. A probe that times out too has the endpoint refused for
 * `cooldownMs`: its deliveries fail at once, as the post would have, and are retried on the
 * usual schedule; after that the next delivery probes. So a dead endpoint's deliveries still
 * end `failed` on the retry schedule, and it holds one slot at a time, for one timeout per
 * cooldown. Quick failures (refused connections, error statuses) take no slot for long: they
 * never trip the breaker, and like any answer they end its hold on the endpoint.
 *
 * The state is this process's own: each worker learns for itself.
 */
export class EndpointBreaker {
  private readonly troubles = new Map<string, Trouble>();

  constructor(private readonly cooldownMs: number) {}

  /** Endpoints probed or refused now, for the metrics. */
  get endpointsInTrouble(): number {
    return this.troubles.size;
  }

  admit(endpointId: string, nowMs: number): Admission {
    const trouble = this.troubles.get(endpointId);
    if (!trouble) return 'send';
    if (trouble.probing) return 'hold';
    if (nowMs < trouble.refusedUntilMs) return 'refuse';
    trouble.probing = true;
    return 'probe';
  }

  /** How a post admitted as `send` or `probe` ended. */
  settle(endpointId: string, admission: 'send' | 'probe', timedOut: boolean, nowMs: number): void {
    if (!timedOut) this.troubles.delete(endpointId);
    else if (admission === 'probe') this.troubles.set(endpointId, { probing: false, refusedUntilMs: nowMs + this.cooldownMs });
    // A timeout of a post sent before the trouble was known changes nothing once it is.
    else if (!this.troubles.has(endpointId)) this.troubles.set(endpointId, { probing: false, refusedUntilMs: nowMs });
  }
}
