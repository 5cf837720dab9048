import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { outbox, webhookDeliveries } from '@agov/db';
import { effectClaim } from '@agov/domain';
import { client } from './client.js';
import { action, createAgent, createPolicy } from './fixtures.js';
import { ownDatabase, signupTenant, useTestApp } from './harness.js';
import { openTransaction, waiterOn } from './held-locks.js';
import { evaluation } from './scenarios.js';

/*
 * Deliveries carry no foreign keys (see the schema's webhook_deliveries): the relay's claim
 * locks the endpoints it writes deliveries for, and deleting an endpoint deletes its deliveries
 * after the endpoint itself. Each order of the two is forced with a lock the test holds from a
 * connection of its own. A database of this file's own: the claim takes every tenant's due rows.
 */
let sql: postgres.Sql;
const t = useTestApp(async () => {
  const databaseUrl = await ownDatabase();
  sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  return { env: { DATABASE_URL: databaseUrl, NODE_ENV: 'development' } };
});
afterAll(() => sql.end());
const api = client(t);
const claim = effectClaim(['webhook_delivery']);

/** A tenant with an endpoint for approval.requested, and an agent whose fixture action needs approval. */
async function subscribedTenant() {
  const tenant = await signupTenant(t.app);
  const created = await api.post(tenant.admin, '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['approval.requested'] });
  expect(created.statusCode, created.body).toBe(201);
  const agent = await createAgent(t.app, tenant.admin);
  await createPolicy(t.app, tenant.admin, agent.id, {
    policy_effect: 'approval_required',
    rationale: 'A human looks at repository writes.',
  });
  return { tenant, endpointId: created.json().data.id as string, agentId: agent.id };
}

const deliveriesOf = (endpointId: string) =>
  t.runtime.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

describe('an endpoint deleted while the relay claims webhooks for it', () => {
  it('deleted first: the claim waits for the delete, then writes no delivery for it', async () => {
    const { tenant, endpointId, agentId } = await subscribedTenant();
    await evaluation(t.app, tenant, action(agentId));
    const deleting = await openTransaction(sql, (connection) => connection`delete from webhook_endpoints where id = ${endpointId}`);

    const claimed = claim(t.runtime.database, { batch: 500, leaseMs: 60_000 });
    await waiterOn(sql, deleting.pid);
    await deleting.commit();

    // The webhook had no endpoint left: retired, with nothing handed on.
    expect((await claimed).effects).toEqual([]);
    expect(await deliveriesOf(endpointId)).toEqual([]);
    const left = await t.runtime.database.db.select({ kind: outbox.kind }).from(outbox).where(eq(outbox.tenantId, tenant.tenantId));
    expect(left).toEqual([{ kind: 'approval_expiry' }]);
  });

  it('claimed first: the delete waits for the claim, then takes its deliveries with it', async () => {
    const { tenant, endpointId } = await subscribedTenant();
    // What the claim does for an endpoint, held open: lock it, write a delivery for it.
    const claiming = await openTransaction(sql, async (connection) => {
      await connection`select id from webhook_endpoints where id = ${endpointId} for key share`;
      await connection`insert into webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, payload)
        values (${tenant.tenantId}, ${endpointId}, gen_random_uuid(), 'approval.requested', '{}')`;
    });

    const deleted = api.delete(tenant.admin, `/api/v1/webhooks/${endpointId}`);
    await waiterOn(sql, claiming.pid);
    await claiming.commit();

    expect((await deleted).statusCode).toBe(204);
    expect(await deliveriesOf(endpointId)).toEqual([]);
  });
});
