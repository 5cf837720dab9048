import { and, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { approvalRequests, chatIntegrations, notificationSettings, webhookEndpoints } from '@agov/db';
import type { CoreDeps } from '../caches/caches.js';
import type { EffectAudience } from '../caches/effect-audiences.js';
import type { Effect, EffectKind, WebhookEvent } from './effects.js';

/**
 * Who receives an effect, defined once. Each condition takes SQL for the tenant (and event) it
 * is about, so the same definition serves a parameter (one tenant), a column (every row the
 * relay claims) or a constant.
 */
type Value = SQLWrapper | string;

/** Active endpoints subscribed to `event`, of any tenant. */
export const subscribedTo = (event: Value): SQL => and(webhookEndpoints.isActive, sql`${event} = any(${webhookEndpoints.events})`)!;

/** Active endpoints of `tenantId` subscribed to `event`. */
export const endpointsSubscribed = (tenantId: Value, event: Value): SQL =>
  and(eq(webhookEndpoints.tenantId, tenantId), subscribedTo(event))!;

const emailEnabled = (tenantId: Value) =>
  sql`exists (select 1 from ${notificationSettings} where ${notificationSettings.tenantId} = ${tenantId} and ${notificationSettings.emailEnabled})`;

const chatEnabled = (tenantId: Value) =>
  sql`exists (select 1 from ${chatIntegrations} where ${chatIntegrations.tenantId} = ${tenantId} and ${chatIntegrations.enabled})`;

const anyEndpointSubscribed = (tenantId: Value, event: Value) =>
  sql`exists (select 1 from ${webhookEndpoints} where ${endpointsSubscribed(tenantId, event)})`;

const AUDIT_EVENT = sql`'audit.event'`;

/** An outbox row's tenant and payload, as SQL, for deciding whether anyone waits for it. */
export interface RowColumns {
  tenantId: SQLWrapper;
  payload: SQLWrapper;
}

interface Receivers {
  wanted(row: RowColumns): SQL;
  known(audience: EffectAudience): boolean;
}

/**
 * The kinds some may not receive, each with its rule twice over: as SQL over an outbox row (the
 * relay retires such rows as it claims them) and over a tenant's cached audience (evaluate does
 * not write them). A webhook is received by every endpoint subscribed to its event: the relay
 * fans it out to those (`endpointsSubscribed`), so it is wanted only as that fan-out.
 */
const RECEIVERS: Partial<Record<EffectKind, Receivers>> = {
  audit_events: {
    wanted: (row) => anyEndpointSubscribed(row.tenantId, AUDIT_EVENT),
    known: (audience) => audience.webhookEvents.has('audit.event'),
  },
  approval_email: { wanted: (row) => emailEnabled(row.tenantId), known: (audience) => audience.email },
  chat_card: { wanted: (row) => chatEnabled(row.tenantId), known: (audience) => audience.chat },
  escalation_email: { wanted: (row) => emailEnabled(row.tenantId), known: (audience) => audience.email },
  escalation_chat: { wanted: (row) => chatEnabled(row.tenantId), known: (audience) => audience.chat },
  /** Not a matter of audience: an expiry is wanted while its request is pending. */
  approval_expiry: {
    wanted: (row) =>
      sql`exists (select 1 from ${approvalRequests} where ${approvalRequests.id} = (${row.payload}->>'approval_id')::uuid and ${approvalRequests.status} = 'pending')`,
    known: () => true,
  },
  /** Likewise an escalation, while its request is pending and not yet escalated. */
  approval_escalation: {
    wanted: (row) =>
      sql`exists (select 1 from ${approvalRequests} where ${approvalRequests.id} = (${row.payload}->>'approval_id')::uuid and ${approvalRequests.status} = 'pending' and ${approvalRequests.escalatedAt} is null)`,
    known: () => true,
  },
};

/** Whether anyone waits for the effect in an outbox row of kind `kind`: a boolean SQL expression. */
export function wantedSql(kind: SQLWrapper, row: RowColumns): SQL {
  const cases = Object.entries(RECEIVERS).map(([name, receivers]) => sql`when ${name} then ${receivers!.wanted(row)}`);
  return sql`case ${kind} ${sql.join(cases, sql` `)} else ${kind} <> 'webhook' end`;
}

/** Who receives a tenant's effects, from the cache or read and cached. */
export async function effectAudience(deps: CoreDeps, tenantId: string): Promise<EffectAudience> {
  const cached = deps.caches.effectAudiences.get(tenantId);
  if (cached) return cached;
  const ticket = deps.caches.effectAudiences.ticket();
  const [row] = await deps.database.rows<{ events: WebhookEvent[]; email: boolean; chat: boolean }>(sql`
    select
      coalesce((select array_agg(distinct event) from ${webhookEndpoints}, unnest(${webhookEndpoints.events}) event
        where ${endpointsSubscribed(tenantId, sql`event`)}), '{}') as events,
      ${emailEnabled(tenantId)} as email,
      ${chatEnabled(tenantId)} as chat`);
  const audience = { webhookEvents: new Set(row!.events), email: row!.email, chat: row!.chat };
  deps.caches.effectAudiences.set(tenantId, audience, ticket);
  return audience;
}

/**
 * The effects someone would receive. The relay retires the others on sight (see
 * claim.ts); evaluate, which records effects on every call, leaves them out instead, so that
 * work for nobody is never written, claimed or deleted.
 */
export function effectsWithAudience(audience: EffectAudience, effects: readonly Effect[]): Effect[] {
  return effects.filter((effect) => {
    if (effect.kind === 'webhook') return audience.webhookEvents.has(effect.event);
    return RECEIVERS[effect.kind]?.known(audience) ?? true;
  });
}
