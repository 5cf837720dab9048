import { randomUUID } from 'node:crypto';
import { transactionInvalidating } from '../caches/invalidation.js';
import { and, desc, eq, type SQL } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints, type WebhookEndpointRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { WebhookDeps } from './deps.js';
import { notFound } from '../support/errors.js';
import type { WebhookEvent } from '../outbox/effects.js';
import { randomHex } from '../support/secrets.js';
import { webhookSecretPlace } from '../secrets-at-rest/places.js';
import { assertWebhookTarget } from './targets.js';

export interface CreateWebhookEndpointInput {
  url: string;
  events: WebhookEvent[];
  description?: string;
}

export interface WebhookEndpointPatch {
  url?: string;
  events?: WebhookEvent[];
  is_active?: boolean;
  description?: string | null;
}

export const webhookEndpointInTenant = (principal: Principal, id: string): SQL =>
  and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.tenantId, principal.tenantId))!;

/** The new endpoint, its signing secret in the clear: only the create response shows it. */
export async function createWebhookEndpoint(
  deps: WebhookDeps,
  principal: Principal,
  input: CreateWebhookEndpointInput,
): Promise<WebhookEndpointRow> {
  await assertWebhookTarget(input.url, deps.webhookTargets);
  // The id is chosen here: the sealed secret is bound to its row.
  const id = randomUUID();
  // 32 random bytes as 64 hex characters; the HMAC key is those characters' ASCII bytes.
  const secret = randomHex(32);
  const sealed = deps.secrets.seal(secret, webhookSecretPlace(id));
  const now = deps.clock.now();
  const [row] = await transactionInvalidating(deps, (tx, invalidate) => {
    invalidate({ kind: 'effect_audience', id: principal.tenantId });
    return tx
      .insert(webhookEndpoints)
      .values({
        id,
        tenantId: principal.tenantId,
        url: input.url,
        events: [...new Set(input.events)],
        secret: sealed,
        description: input.description ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
  });
  return { ...row!, secret };
}

/** The key that signs the endpoint's deliveries, from the value stored for it. */
export const webhookSigningSecret = (deps: Pick<WebhookDeps, 'secrets'>, endpoint: { id: string; secret: string }) =>
  deps.secrets.open(endpoint.secret, webhookSecretPlace(endpoint.id));

/** Every endpoint of the tenant, newest first. Unpaged, as the spec shows the list. */
export async function listWebhookEndpoints(deps: WebhookDeps, principal: Principal): Promise<WebhookEndpointRow[]> {
  return deps.database.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.tenantId, principal.tenantId))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
}

export async function getWebhookEndpoint(deps: WebhookDeps, principal: Principal, id: string): Promise<WebhookEndpointRow> {
  const [row] = await deps.database.db.select().from(webhookEndpoints).where(webhookEndpointInTenant(principal, id));
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** Changes only the given fields; a new URL must pass the same target check as on create. */
export async function updateWebhookEndpoint(
  deps: WebhookDeps,
  principal: Principal,
  id: string,
  patch: WebhookEndpointPatch,
): Promise<WebhookEndpointRow> {
  if (patch.url !== undefined) await assertWebhookTarget(patch.url, deps.webhookTargets);
  const [row] = await transactionInvalidating(deps, (tx, invalidate) => {
    invalidate({ kind: 'effect_audience', id: principal.tenantId });
    return tx
      .update(webhookEndpoints)
      .set({
        url: patch.url,
        events: patch.events === undefined ? undefined : [...new Set(patch.events)],
        isActive: patch.is_active,
        description: patch.description,
        updatedAt: deps.clock.now(),
      })
      .where(webhookEndpointInTenant(principal, id))
      .returning();
  });
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/**
 * Removes the endpoint and, in the same transaction, its delivery history. The endpoint goes
 * first: a claim writing deliveries for it holds it locked, so this waits for that claim to
 * commit, and the deliveries' delete after it sees what the claim wrote.
 */
export async function deleteWebhookEndpoint(deps: WebhookDeps, principal: Principal, id: string): Promise<void> {
  const rows = await transactionInvalidating(deps, async (tx, invalidate) => {
    invalidate({ kind: 'effect_audience', id: principal.tenantId });
    const deleted = await tx.delete(webhookEndpoints).where(webhookEndpointInTenant(principal, id)).returning({ id: webhookEndpoints.id });
    if (deleted.length > 0) await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
    return deleted;
  });
  if (rows.length === 0) throw notFound('Webhook endpoint');
}
