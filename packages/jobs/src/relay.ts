import { DELIVERIES_PER_EFFECT, type Deps } from '@agov/domain';
import type { Logger } from 'pino';
import { HANDLED_KINDS, type HandledKind } from './catalog.js';

/** A claimed row as its job carries it: the row's id and the ids it concerns. */
export interface ClaimedEffect {
  id: string;
  kind: HandledKind;
  tenantId: string;
  payload: Record<string, unknown>;
}

/** Where claimed effects go: a queue on Redis, or this process's own consumers. */
export interface EffectSink {
  enqueue(effects: readonly ClaimedEffect[]): Promise<void>;
}

const BATCH = 500;
const sqlList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/**
 * One statement claims a batch of due rows, oldest first; rows another relay holds are
 * skipped, so any number of relays can run. In the same statement:
 * - a webhook becomes one delivery per active endpoint of its tenant subscribed to its event,
 *   and each tenant's new deliveries become outbox rows of up to DELIVERIES_PER_EFFECT,
 *   claimed at once (no job just to fan out);
 * - effects nobody is waiting for are deleted instead of travelling through the queue:
 *   audit events of a tenant with no subscribed endpoint, the expiry of a request already
 *   decided, e-mails and chat cards of a tenant that has not enabled them;
 * - the rest are leased: due again after `$2` ms unless their handler finishes or
 *   reschedules them first.
 */
const CLAIM = `
  with due as (
    select o.id, o.kind, o.tenant_id, o.payload from outbox o
    where o.available_at <= now()
    order by o.available_at
    limit $1
    for update of o skip locked
  ), judged as (
    select d.id, d.kind, case d.kind
      when 'audit_events' then exists (select 1 from webhook_endpoints e
        where e.tenant_id = d.tenant_id and e.is_active and 'audit.event' = any(e.events))
      when 'approval_expiry' then exists (select 1 from approval_requests a
        where a.id = (d.payload->>'approval_id')::uuid and a.status = 'pending')
      when 'approval_email' then exists (select 1 from notification_settings n
        where n.tenant_id = d.tenant_id and n.email_enabled)
      when 'chat_card' then exists (select 1 from chat_integrations c
        where c.tenant_id = d.tenant_id and c.enabled)
      else d.kind <> 'webhook' end as wanted
    from due d
  ), deliveries as (
    insert into webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, payload)
    select gen_random_uuid(), d.tenant_id, e.id, (d.payload->>'id')::uuid, d.payload->>'event', d.payload
    from due d join webhook_endpoints e
      on e.tenant_id = d.tenant_id and e.is_active and (d.payload->>'event') = any(e.events)
    where d.kind = 'webhook'
    returning id, tenant_id
  ), delivery_effects as (
    insert into outbox (tenant_id, kind, payload, available_at, attempts)
    select tenant_id, 'webhook_delivery', jsonb_build_object('delivery_ids', jsonb_agg(id)), now() + $2 * interval '1 millisecond', 1
    from (select id, tenant_id, (row_number() over (partition by tenant_id) - 1) / ${DELIVERIES_PER_EFFECT} as batch from deliveries) d
    group by tenant_id, batch
    returning id, kind, tenant_id, payload
  ), retired as (
    delete from outbox o using judged j where o.id = j.id and not j.wanted
  ), claimed as (
    update outbox o set available_at = now() + $2 * interval '1 millisecond', attempts = o.attempts + 1
    from judged j
    where o.id = j.id and j.wanted and j.kind in (${sqlList(HANDLED_KINDS)})
    returning o.id, o.kind, o.tenant_id, o.payload
  )
  select (select count(*) from due)::int as taken, coalesce((select json_agg(handed_on) from (
    select id, kind, tenant_id as "tenantId", payload from claimed
    union all
    select id, kind, tenant_id, payload from delivery_effects) handed_on), '[]') as effects`;

const RELEASE = `update outbox set available_at = now() where id = any($1::uuid[])`;

/**
 * Moves due outbox rows to the consumers, at least once. A row leaves the outbox only when
 * its handler has done its work, so whatever is lost on the way (Redis restarted empty, a
 * worker killed mid-job) comes due again when its lease runs out: this loop is also the
 * sweeper. It polls every `pollMs`, and at once again while it finds full batches.
 */
export class OutboxRelay {
  private stopped = false;
  private running: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** Why the last poll failed: the database being away is told by `databaseAvailability`, anything else here. */
  private failing: 'database' | 'queue' | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly sink: EffectSink,
    private readonly logger: Logger,
    private readonly options: { pollMs: number; leaseMs: number },
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** New rows are waiting (a fan-out just wrote deliveries): look now, not at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  /**
   * Claims one batch and hands it on. Returns how many due rows it took, handed on or not:
   * a batch of webhooks becomes a few delivery jobs, and rows nobody wants become none, but a
   * full batch still means more may be due.
   */
  async relayOnce(): Promise<number> {
    const [batch] = await this.deps.database.prepared<{ taken: number; effects: ClaimedEffect[] }>(CLAIM, [BATCH, this.options.leaseMs]);
    const { taken, effects } = batch!;
    if (effects.length === 0) return taken;
    try {
      await this.sink.enqueue(effects);
    } catch (error) {
      // Not handed on: due again at once, for when the queue is back.
      await this.deps.database.prepared(RELEASE, [effects.map((effect) => effect.id)]);
      throw error;
    }
    return taken;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let taken = 0;
      try {
        taken = await this.relayOnce();
        if (this.failing === 'queue') this.logger.info('outbox relay: dispatching again');
        this.failing = null;
      } catch (error) {
        const cause = this.deps.databaseAvailability.report(error) ? 'database' : 'queue';
        // Logged once per outage, not on every poll.
        if (cause === 'queue' && this.failing !== 'queue')
          this.logger.error({ err: error }, 'outbox relay: cannot dispatch; effects wait in the outbox');
        this.failing = cause;
      }
      if (taken < BATCH) await this.pause(this.failing ? Math.max(this.options.pollMs, 1_000) : this.options.pollMs);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }
}
