import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { beforeMigration } from '../../../db/test/migrating.js';

/**
 * The migration that records agents' states: every agent's state as it stands is its first
 * recorded one, and from then on the trigger records a new one on insert and on every update
 * that changes a state field, and only then. Checked on PostgreSQL and embedded.
 */

const databases = beforeMigration('agent_states');

interface State {
  id: number;
  agent: string;
  lifecycle_state: string;
  authority_model: string;
  identity_mode: string;
  delegation_model: string;
  autonomy_tier: string;
  environment: string;
}

describe.each(databases)('migrating to recorded agent states on %s', (_name, migratedBefore) => {
  it("starts from each agent's state as it stands, and records a new one only when a state field changes", async () => {
    const database = await migratedBefore();
    try {
      const [tenant] = await database.rows<{ id: string }>(sql`insert into tenants (name) values ('States') returning id`);
      const insertAgent = (name: string, lifecycle: string) =>
        database.rows(sql`
          insert into agents (tenant_id, name, description, owner_name, owner_role, team, environment, authority_model,
            identity_mode, delegation_model, autonomy_tier, authorized_integrations, next_review_date, created_by,
            modified_by, modified_at, lifecycle_state)
          values (${tenant!.id}, ${name}, '', 'Olivia', 'owner', 'core', 'production', 'delegated', 'service', 'none',
            'supervised', '[]'::jsonb, '2027-01-01', 'olivia', 'olivia', now(), ${lifecycle})`);
      await insertAgent('ops', 'active');
      await insertAgent('bot', 'suspended');

      await database.migrate();

      const states = () =>
        database.rows<State>(sql`
          select s.id::int as id, a.name as agent, s.lifecycle_state, s.authority_model, s.identity_mode, s.delegation_model,
            s.autonomy_tier, s.environment
          from agent_states s join agents a on a.id = s.agent_id where s.tenant_id = ${tenant!.id} order by s.id`);
      const stateIds = () =>
        database.rows<{ agent: string; state_id: number }>(
          sql`select name as agent, state_id::int as state_id from agents where tenant_id = ${tenant!.id} order by name`,
        );
      const recorded = { authority_model: 'delegated', identity_mode: 'service', delegation_model: 'none', autonomy_tier: 'supervised' };
      const first = await states();
      expect(first.map(({ id: _, ...state }) => state).sort((a, b) => a.agent.localeCompare(b.agent))).toEqual([
        { agent: 'bot', lifecycle_state: 'suspended', ...recorded, environment: 'production' },
        { agent: 'ops', lifecycle_state: 'active', ...recorded, environment: 'production' },
      ]);
      const idOf = (rows: State[], agent: string) => rows.find((state) => state.agent === agent)!.id;
      expect(await stateIds()).toEqual([
        { agent: 'bot', state_id: idOf(first, 'bot') },
        { agent: 'ops', state_id: idOf(first, 'ops') },
      ]);

      // Not a state field, nor the state id itself: no new state, and the agent keeps its own.
      await database.rows(sql`update agents set description = 'Deploys', state_id = 0 where name = 'ops'`);
      expect(await states()).toEqual(first);
      expect((await stateIds())[1]).toEqual({ agent: 'ops', state_id: idOf(first, 'ops') });

      await database.rows(sql`update agents set lifecycle_state = 'active' where name = 'bot'`);
      await database.rows(sql`update agents set environment = 'staging', lifecycle_state = 'active' where name = 'ops'`);
      await insertAgent('new', 'active');
      const after = await states();
      expect(after.slice(0, 2)).toEqual(first);
      expect(after.slice(2).map(({ id: _, ...state }) => state)).toEqual([
        { agent: 'bot', lifecycle_state: 'active', ...recorded, environment: 'production' },
        { agent: 'ops', lifecycle_state: 'active', ...recorded, environment: 'staging' },
        { agent: 'new', lifecycle_state: 'active', ...recorded, environment: 'production' },
      ]);
      expect(await stateIds()).toEqual([
        { agent: 'bot', state_id: after[2]!.id },
        { agent: 'new', state_id: after[4]!.id },
        { agent: 'ops', state_id: after[3]!.id },
      ]);
    } finally {
      await database.close();
    }
  });
});
