import { fillPlaceholders, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { outbox, webhookDeliveries, webhookEndpoints, type Database } from '@agov/db';
import { endpointsSubscribed, wantedSql } from './audience.js';
import { DELIVERIES_PER_EFFECT, type DueEffect, dueEffect, type EffectKind, type StoredEffect } from './effects.js';

export interface Claim<K extends EffectKind> {
  /** Due rows taken, handed on or not: a full batch means more may be due. */
  taken: number;
  /** The rows to hand to their jobs: those claimed, and the delivery batches made from webhooks. */
  effects: DueEffect<K>[];
}

const due = { tenantId: sql`due.tenant_id`, payload: sql`due.payload` };

/**
 * One statement claims a batch of due rows, oldest first; rows another relay holds are
 * skipped, so any number of relays can run. In the same statement:
 * - a webhook becomes one delivery per active endpoint of its tenant subscribed to its event,
 *   and each tenant's new deliveries become outbox rows of up to DELIVERIES_PER_EFFECT,
 *   claimed at once (no job just to fan out). Those endpoints are locked first (`receiving`),
 *   so one deleted meanwhile gets no delivery, and one deleted after waits for this claim and
 *   then takes its deliveries with it (see deleteWebhookEndpoint);
 * - effects nobody is waiting for are deleted instead of travelling through the queue (see
 *   audience.ts);
 * - the rest of the kinds asked for are leased: due again after `leaseMs` unless their
 *   handler finishes or reschedules them first.
 * Built once, with only the batch size and the lease as parameters, and prepared: the
 * relay runs it on every poll.
 */
function claimStatement(kinds: readonly EffectKind[]) {
  const subscribed = endpointsSubscribed(due.tenantId, sql`(due.payload->>'event')`);
  const leaseEnds = sql`now() + ${sql.placeholder('leaseMs')} * interval '1 millisecond'`;
  const statement = sql`
    with due as (
      select ${outbox.id}, ${outbox.kind}, ${outbox.tenantId} as tenant_id, ${outbox.payload} from ${outbox}
      where ${outbox.availableAt} <= now()
      order by ${outbox.availableAt}
      limit ${sql.placeholder('batch')}
      for update skip locked
    ), judged as (
      select due.id, due.kind, ${wantedSql(sql`due.kind`, due)} as wanted from due
    ), receiving as (
      select ${webhookEndpoints.id} from ${webhookEndpoints}
      where exists (select from due where due.kind = 'webhook' and ${subscribed})
      for key share
    ), deliveries as (
      insert into ${webhookDeliveries} (id, tenant_id, endpoint_id, event_id, event_type, payload)
      select gen_random_uuid(), due.tenant_id, ${webhookEndpoints.id}, (due.payload->>'id')::uuid, due.payload->>'event', due.payload
      from due join ${webhookEndpoints} on ${subscribed}
      where due.kind = 'webhook' and ${webhookEndpoints.id} in (select id from receiving)
      returning id, tenant_id
    ), delivery_effects as (
      insert into ${outbox} (tenant_id, kind, payload, available_at, attempts)
      select tenant_id, 'webhook_delivery', jsonb_build_object('delivery_ids', jsonb_agg(id)), ${leaseEnds}, 1
      from (select id, tenant_id, (row_number() over (partition by tenant_id) - 1) / ${DELIVERIES_PER_EFFECT} as batch from deliveries) batched
      group by tenant_id, batch
      returning id, kind, tenant_id, payload
    ), retired as (
      delete from ${outbox} using judged where ${outbox.id} = judged.id and not judged.wanted
    ), claimed as (
      update ${outbox} set available_at = ${leaseEnds}, attempts = ${outbox.attempts} + 1
      from judged
      where ${outbox.id} = judged.id and judged.wanted and judged.kind in (${sql.join(
        kinds.map((kind) => sql`${kind}`),
        sql`, `,
      )})
      returning ${outbox.id}, ${outbox.kind}, ${outbox.tenantId}, ${outbox.payload}
    )
    select (select count(*) from due)::int as taken, coalesce((select json_agg(handed_on) from (
      select id, kind, tenant_id as "tenantId", payload from claimed
      union all
      select id, kind, tenant_id, payload from delivery_effects) handed_on), '[]') as effects`;
  // Constants go into the text, so the statement's only parameters are the placeholders.
  return new PgDialect().sqlToQuery(statement.inlineParams());
}

/**
 * The claim of the due effects of these kinds (which must include `webhook_delivery`, the
 * rows webhooks become); unwanted rows of any kind are retired. The statement is built once.
 */
export function effectClaim<K extends EffectKind>(kinds: readonly K[]) {
  const query = claimStatement(kinds);
  return async (database: Database, options: { batch: number; leaseMs: number }): Promise<Claim<K>> => {
    const [claim] = await database.prepared<{ taken: number; effects: StoredEffect<K>[] }>(
      query.sql,
      fillPlaceholders(query.params, options),
    );
    return { taken: claim!.taken, effects: claim!.effects.map(dueEffect) };
  };
}

const RELEASE = `update outbox set available_at = now() where id = any($1::uuid[])`;

/** Claimed effects that could not be handed on are due again at once. */
export async function releaseEffects(database: Database, ids: readonly string[]): Promise<void> {
  await database.prepared(RELEASE, [ids]);
}
