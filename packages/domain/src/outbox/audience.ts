import { sql } from 'drizzle-orm';
import { chatIntegrations, notificationSettings, webhookEndpoints } from '@agov/db';
import type { CoreDeps } from '../caches/caches.js';
import type { EffectAudience } from '../caches/effect-audiences.js';
import type { Effect } from './outbox.js';

export async function effectAudience(deps: CoreDeps, tenantId: string): Promise<EffectAudience> {
  const cached = deps.caches.effectAudiences.get(tenantId);
  if (cached) return cached;
  const ticket = deps.caches.effectAudiences.ticket();
  const [row] = await deps.database.rows<{ events: string[]; email: boolean; chat: boolean }>(sql`
    select
      coalesce((select array_agg(distinct event) from ${webhookEndpoints}, unnest(${webhookEndpoints.events}) event
        where ${webhookEndpoints.tenantId} = ${tenantId} and ${webhookEndpoints.isActive}), '{}') as events,
      coalesce((select ${notificationSettings.emailEnabled} from ${notificationSettings}
        where ${notificationSettings.tenantId} = ${tenantId}), false) as email,
      coalesce((select ${chatIntegrations.enabled} from ${chatIntegrations}
        where ${chatIntegrations.tenantId} = ${tenantId}), false) as chat`);
  const audience = { webhookEvents: new Set(row!.events), email: row!.email, chat: row!.chat };
  deps.caches.effectAudiences.set(tenantId, audience, ticket);
  return audience;
}

/**
 * The effects someone would receive. The relay deletes the others on sight (see
 * packages/jobs/src/relay.ts); evaluate, which records effects on every call, leaves them
 * out instead, so that work for nobody is never written, claimed or deleted.
 */
export function effectsWithAudience(audience: EffectAudience, effects: readonly Effect[]): Effect[] {
  return effects.filter((effect) => {
    switch (effect.kind) {
      case 'audit_events':
        return audience.webhookEvents.has('audit.event');
      case 'webhook':
        return audience.webhookEvents.has(effect.event);
      case 'approval_email':
        return audience.email;
      case 'chat_card':
        return audience.chat;
      default:
        return true;
    }
  });
}
