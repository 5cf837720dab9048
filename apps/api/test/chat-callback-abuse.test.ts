import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedInteraction } from '../../../test/slack-api.js';
import { request, signupTenant, TestClock, type TestApp, useTestApp } from './harness.js';
import { expectLimitHeaders, expectRateLimited, stopInWindow, WINDOW_MS } from './rate-limit-support.js';

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

/** A press on a card of `TEAM`'s workspace, signed with a guessed secret, padded (to near the 64 KiB limit by default). */
function forgedPress(padding = 60_000) {
  const payload = {
    type: 'block_actions',
    team: { id: TEAM },
    user: { id: 'U0ATTACKER' },
    actions: [{ action_id: 'approval.approve', value: '00000000-0000-4000-8000-000000000000' }],
    padding: 'x'.repeat(padding),
  };
  return signedInteraction('a-guessed-secret', payload);
}

describe('a forged callback', () => {
  const one = useTestApp({ ownDatabase: true });
  const many = useTestApp({ ownDatabase: true });
  beforeAll(async () => {
    await botIntegrations(one, 0);
    await botIntegrations(many, 499);
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

describe("the callback's own allowance per client address", () => {
  const clock = new TestClock();
  // The default figure, and a small unauthenticated allowance to show the two are apart.
  const t = useTestApp({ clock, env: { RATE_LIMIT_CHAT_CALLBACK: '', RATE_LIMIT_UNAUTHENTICATED: '3' } });

  const PER_ADDRESS = 600;
  const forged = forgedPress(0);
  const from = (remoteAddress: string) =>
    t.app.inject({ method: 'POST', url: CALLBACK, remoteAddress, headers: forged.headers, payload: forged.body });

  it('admits 600 a minute from one address, then answers 429, leaving other addresses and allowances alone', async () => {
    const address = '198.51.100.20';
    const start = stopInWindow(clock, 0);
    for (let i = 1; i <= PER_ADDRESS; i += 1) {
      const response = await from(address);
      expect(response.statusCode).toBe(403);
      if (i === 1 || i === PER_ADDRESS) expectLimitHeaders(response, PER_ADDRESS, PER_ADDRESS - i, start + 2 * WINDOW_MS);
    }

    // 600 weigh 600 × (1 − e/60 s) in the next window; one more fits from e = 100 ms.
    expectRateLimited(await from(address), {
      category: 'chat_callback',
      limit: PER_ADDRESS,
      message: `Rate limit exceeded: ${PER_ADDRESS} chat_callback requests per minute`,
      nowMs: start,
      retryAtMs: start + WINDOW_MS + 100,
    });

    const elsewhere = await from('198.51.100.21');
    expect(elsewhere.statusCode).toBe(403);
    expectLimitHeaders(elsewhere, PER_ADDRESS, PER_ADDRESS - 1, start + 2 * WINDOW_MS);
    // The address's unauthenticated allowance is untouched by its callbacks.
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/agents', remoteAddress: address });
    expect(anonymous.statusCode).toBe(401);
    expectLimitHeaders(anonymous, 3, 2, start + 2 * WINDOW_MS);
  });
});
