import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInteraction } from '../../../test/slack-api.js';
import { createTestApp, ownDatabase, request, signupTenant, type TestApp } from './harness.js';

/*
 * What an unauthenticated caller can make the chat callback spend. Anyone may sign up and
 * configure a bot integration, so the cost of a forged press must not grow with their number.
 */
const CALLBACK = '/api/v1/integrations/chat/callback';
const TEAM = 'T0VICTIM';

/** A tenant in bot mode for `TEAM`, saved through the API, and `clones` more tenants of other teams. */
async function botIntegrations(t: TestApp, clones: number) {
  const tenant = await signupTenant(t.app);
  const saved = await request(t.app, tenant.admin, {
    method: 'PUT',
    url: '/api/v1/integrations/chat',
    payload: {
      mode: 'bot',
      app_id: 'A0TESTAPP',
      app_secret: 'the-real-signing-secret',
      bot_token: 'xoxb-abuse-token',
      team_id: TEAM,
      channel_id: 'C0APPROVALS',
      enabled: true,
    },
  });
  expect(saved.statusCode, saved.body).toBe(200);
  if (clones === 0) return;
  // As many signups would leave them: each its own tenant and team, with settings as the API stores them.
  await t.runtime.database.db.execute(sql`
    with added as (
      insert into tenants (name) select 'Tenant ' || n from generate_series(1, ${clones}) as n returning id, name
    )
    insert into chat_integrations (tenant_id, mode, enabled, settings)
    select added.id, 'bot', true, jsonb_set(source.settings, '{team_id}', to_jsonb('T' || md5(added.name)))
    from added, chat_integrations as source
    where source.tenant_id = ${tenant.tenantId}`);
}

/** A press on a card of `TEAM`'s workspace, signed with a guessed secret, padded to near the 64 KiB limit. */
function forgedPress() {
  const payload = {
    type: 'block_actions',
    team: { id: TEAM },
    user: { id: 'U0ATTACKER' },
    actions: [{ action_id: 'approval.approve', value: '00000000-0000-4000-8000-000000000000' }],
    padding: 'x'.repeat(60_000),
  };
  return signedInteraction('a-guessed-secret', payload);
}

describe('a forged callback', () => {
  let one: TestApp;
  let many: TestApp;
  beforeAll(async () => {
    one = await createTestApp({ env: { DATABASE_URL: await ownDatabase() } });
    many = await createTestApp({ env: { DATABASE_URL: await ownDatabase() } });
    await botIntegrations(one, 0);
    await botIntegrations(many, 499);
  });
  afterAll(async () => {
    await one?.close();
    await many?.close();
  });

  /** Process CPU time (µs) of 200 forged presses, each refused. */
  async function cpuOf200(t: TestApp): Promise<number> {
    const forged = forgedPress();
    const start = process.cpuUsage();
    for (let i = 0; i < 200; i += 1) {
      const response = await t.app.inject({ method: 'POST', url: CALLBACK, headers: forged.headers, payload: forged.body });
      expect(response.statusCode).toBe(403);
    }
    const used = process.cpuUsage(start);
    return used.user + used.system;
  }

  it('costs no more with 500 bot integrations configured than with 1', async () => {
    await cpuOf200(one);
    await cpuOf200(many);
    // Alternating turns (ABBA), so whatever else the machine does falls on both alike.
    const spent = { one: 0, many: 0 };
    for (let round = 0; round < 2; round += 1) {
      spent.one += await cpuOf200(one);
      spent.many += await cpuOf200(many);
      spent.many += await cpuOf200(many);
      spent.one += await cpuOf200(one);
    }
    expect(spent.many / spent.one).toBeLessThan(2);
  }, 120_000);
});
