import { sql, type SQL } from 'drizzle-orm';
import type { AgentRow, Executor, PolicyRuleRow } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { DecisionInputs } from '../caches/decision-inputs.js';
import type { CoreDeps } from '../caches/caches.js';
import { decide } from '../evaluation/decide.js';
import { AGENT_STATE_FIELDS, decisionInputsOf } from '../evaluation/decision-inputs.js';
import { readsContext } from '../policy/conditions.js';
import { entryOf } from '../history/entries.js';
import { historyTermsOf } from '../history/read.js';
import { HistoryReplay } from '../history/replay.js';
import { throttledDecision, type Throttled } from '../evaluation/throttle.js';
import type { ActionRequest, PolicyEffect } from '../policy/matching.js';
import { byCountThenDecisions, compareText, type Transition } from '../policy/transitions.js';
import { AppError } from '../support/errors.js';
import { heldAt, type TimeRange } from '../support/time-range.js';
import { draftRules, type DraftChange, type DraftRules } from './draft.js';

/** Samples given per transition, oldest first. */
export const SIMULATION_SAMPLES = 10;
/** Recorded evaluations read per query: large enough that round trips cost little, small enough to hold. */
const PAGE_SIZE = 10_000;

export interface SimulationRequest extends TimeRange {
  agent_id?: string;
  changes: readonly DraftChange[];
}

export interface SimulationSample {
  traceId: string;
  from: PolicyEffect;
  to: PolicyEffect;
  /** The rule that decides under the draft; null for a default deny or an inactive agent. */
  rule: PolicyRuleRow | null;
}

export interface Simulation {
  evaluated: number;
  changed: number;
  /** Most frequent first, then by decision names. */
  transitions: Transition[];
  /** Per transition in that order, its oldest SIMULATION_SAMPLES. */
  samples: SimulationSample[];
  /** Changed decisions per rule deciding under the draft (null: none decides); most first. */
  rules: { rule: PolicyRuleRow | null; changed: number }[];
  /** The rules the draft creates, by the index of their change. */
  created: Map<PolicyRuleRow, number>;
}

/** One recorded evaluation as the page query reads it: already an ActionRequest. */
interface Recorded extends ActionRequest {
  id: string;
  at: string;
  /** `at` in ms, what history operators compare. */
  at_ms: number;
  decision: PolicyEffect;
  /** The agent's state the trace names (`agent_states.id`); null for a trace older than that column. */
  state_id: string | null;
  /** For such a trace, its agent's id and the state identity_resolved recorded (see `stateText`). */
  recorded_state: string | null;
  /** Read only for an agent whose rules under the draft may read it (`readsContext`); null otherwise, or when none was sent. */
  context: Record<string, unknown> | null;
  /** What its agent_throttled event recorded, when the agent was past a limit. */
  throttled: { limit: Throttled['limit']; max: number; throttle_effect: Throttled['effect'] } | null;
}

/** What evaluate sends conditions when a call had no context; never written to. */
const NO_CONTEXT: Record<string, unknown> = Object.freeze({});

/**
 * Re-decides every evaluation recorded in the window (both bounds included, the end held at
 * now, as the exports) with `decide` itself, under the current rules with the draft applied
 * and with the agent as identity_resolved recorded it. Nothing is written. Counted first: over
 * `maxEvaluations` is 413 before anything is decided (README, "Invariants").
 */
export async function simulate(
  deps: CoreDeps,
  principal: Principal,
  request: SimulationRequest,
  maxEvaluations: number,
): Promise<Simulation> {
  const draft = await draftRules(deps, principal, request.changes, request.agent_id);
  const { from, to } = heldAt(request, deps.clock.now());
  const where = sql`t.tenant_id = ${principal.tenantId} and t.started_at >= ${from.toISOString()}::timestamptz
    and t.started_at <= ${to.toISOString()}::timestamptz${request.agent_id === undefined ? sql`` : sql` and t.agent_id = ${request.agent_id}`}`;

  // The count and the pages read one snapshot where the driver allows (Database.readSnapshot).
  return deps.database.readSnapshot(async (executor) => {
    const [counted] = await deps.database.rows<{ total: number }>(
      sql`select count(*)::int as total from traces t where ${where}`,
      executor,
    );
    const total = counted?.total ?? 0;
    if (total > maxEvaluations) {
      throw new AppError(
        'export_too_large',
        `The window holds ${total} recorded evaluations; a simulation re-decides at most ${maxEvaluations}. Narrow the window.`,
        { total, limit: maxEvaluations },
      );
    }

    const states = await agentStates(deps, principal.tenantId, request.agent_id, executor);
    const contextReaders = [...draft.rulesByAgent]
      .filter(([, rules]) => rules.some((rule) => rule.conditions !== null && readsContext(rule.conditions)))
      .map(([agentId]) => agentId);
    const tally = new Tally();
    const inputsFor = decisionInputs(draft);
    const replay = new HistoryReplay();
    const read = (after: Recorded | undefined) => {
      const page = deps.database.rows<Recorded>(pageQuery(where, contextReaders, after), executor);
      // Should deciding the page before it throw, this one is never awaited: its failure must not go unhandled.
      page.catch(() => undefined);
      return page;
    };
    // The next page is asked for before this one is decided, so the database reads while Node decides.
    let next: Promise<Recorded[]> | undefined = read(undefined);
    while (next) {
      const page: Recorded[] = await next;
      next = page.length === PAGE_SIZE ? read(page[PAGE_SIZE - 1]) : undefined;
      for (const row of page) {
        const inputs = inputsFor(row.state_id === null ? row.recorded_state! : stateOf(states, row.state_id));
        const context = row.context ?? NO_CONTEXT;
        const terms = historyTermsOf(inputs);
        const entry = terms.length === 0 ? null : entryOf(row.at_ms, row, context);
        const ruled = decide(inputs, row, context, entry ? replay.valuesFor(inputs.agent.id, terms, entry) : undefined);
        // A throttle stays what it was: the agent was past its limit then, whatever the rules say now.
        const { throttled } = row;
        const decision = throttled
          ? throttledDecision(ruled, { limit: throttled.limit, max: throttled.max, effect: throttled.throttle_effect })
          : ruled;
        tally.add(row, decision.effect, decision.rule);
        if (entry) replay.add(inputs.agent.id, terms, entry, decision.effect);
      }
    }
    return { ...tally.result(), created: draft.created };
  });
}

/**
 * An agent's state as one text: its id and AGENT_STATE_FIELDS, `|`-separated, each read by
 * `field` (an empty text for a field not recorded). Rows of one agent in one state share it,
 * and with it their DecisionInputs.
 */
const stateText = (agentId: string, field: (name: string) => string) =>
  sql.raw(`concat(${agentId}, '|', ${AGENT_STATE_FIELDS.map(([name]) => field(name)).join(`, '|', `)})`);

/** The states of the tenant's agents (or of the one asked about) by id, as `stateText`; a few rows per agent. */
async function agentStates(deps: CoreDeps, tenantId: string, agentId: string | undefined, executor: Executor) {
  const rows = await deps.database.rows<{ id: string; state: string }>(
    sql`select id::text as id, ${stateText('agent_id', (name) => name)} as state from agent_states
      where tenant_id = ${tenantId}${agentId === undefined ? sql`` : sql` and agent_id = ${agentId}`}`,
    executor,
  );
  return new Map(rows.map(({ id, state }) => [id, state]));
}

function stateOf(states: ReadonlyMap<string, string>, stateId: string): string {
  const state = states.get(stateId);
  // A state is committed with the agent's change, before any trace can name it.
  if (state === undefined) throw new Error(`Agent state ${stateId} of a recorded trace not found`);
  return state;
}

/**
 * One page in (started_at, id) order after `after`: the trace's request, its recorded decision
 * and the agent's state it names; only what deciding reads. A trace written before traces named
 * their state has its identity_resolved event (seq 2) read instead, found by the events' primary
 * key. The context, from the trace_initiated event (seq 1), is read only for `contextReaders`,
 * the agents whose rules may read it. A throttle, when the agent was past a limit, is the event
 * after policy_evaluated (seq 4); it is looked for only where the decision was not `allow`, since
 * a throttle never allows. Every trace is one evaluate call: nothing else writes traces.
 */
function pageQuery(where: SQL, contextReaders: readonly string[], after: Recorded | undefined): SQL {
  const recordedState = stateText('t.agent_id', (name) => `coalesce(s.metadata->>'${name}', '')`);
  const context =
    contextReaders.length === 0
      ? sql`null::jsonb`
      : sql`case when t.agent_id in (${sql.join(
          contextReaders.map((agentId) => sql`${agentId}::uuid`),
          sql`, `,
        )}) then (select i.metadata->'context' from trace_events i where i.trace_id = t.id and i.seq = 1) end`;
  return sql`
    select t.id, t.started_at::text as at, (extract(epoch from t.started_at) * 1000)::float8 as at_ms, t.decision, t.requested_operation as operation, t.target_integration,
      t.resource_scope, t.data_classification, t.agent_state_id::text as state_id,
      case when t.agent_state_id is null then (select ${recordedState} from trace_events s where s.trace_id = t.id and s.seq = 2) end as recorded_state,
      ${context} as context,
      case when t.decision <> 'allow' then (select e.metadata from trace_events e
        where e.trace_id = t.id and e.seq = 4 and e.event_type = 'agent_throttled') end as throttled
    from traces t
    where ${where}${after ? sql` and (t.started_at, t.id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
    order by t.started_at, t.id
    limit ${PAGE_SIZE}`;
}

/**
 * DecisionInputs per agent and recorded state, built once each: the agent's current row with the
 * recorded fields laid over it (a field not recorded keeps the current value), and its rules
 * under the draft. An agent suspended then is denied as evaluate denied it; one suspended since
 * is decided by the rules.
 */
function decisionInputs(draft: DraftRules): (agentState: string) => DecisionInputs {
  const cache = new Map<string, DecisionInputs>();
  return (agentState) => {
    let inputs = cache.get(agentState);
    if (!inputs) {
      const [agentId, ...values] = agentState.split('|');
      const current = draft.agents.get(agentId!);
      // Traces are kept and agents never deleted, so every trace's agent is the tenant's.
      if (!current) throw new Error(`Agent ${agentId} of a recorded trace not found`);
      const agent: AgentRow = { ...current };
      AGENT_STATE_FIELDS.forEach(([, column], index) => {
        if (values[index]) (agent as Record<string, unknown>)[column] = values[index];
      });
      // The draft's rules are already only the active `enforce` ones.
      inputs = decisionInputsOf(agent, draft.rulesByAgent.get(agent.id) ?? []);
      cache.set(agentState, inputs);
    }
    return inputs;
  };
}

/** Counts of changed decisions by transition and by deciding rule, with each transition's oldest samples. */
class Tally {
  private evaluated = 0;
  private readonly transitions = new Map<string, Transition & { samples: SimulationSample[] }>();
  private readonly rules = new Map<PolicyRuleRow | null, number>();

  add(row: Recorded, to: PolicyEffect, rule: PolicyRuleRow | null) {
    this.evaluated += 1;
    if (row.decision === to) return;
    const key = `${row.decision}>${to}`;
    let transition = this.transitions.get(key);
    if (!transition) {
      transition = { from: row.decision, to, count: 0, samples: [] };
      this.transitions.set(key, transition);
    }
    transition.count += 1;
    // Rows come oldest first, so the first ones kept are the oldest.
    if (transition.samples.length < SIMULATION_SAMPLES) transition.samples.push({ traceId: row.id, from: row.decision, to, rule });
    this.rules.set(rule, (this.rules.get(rule) ?? 0) + 1);
  }

  result() {
    const transitions = [...this.transitions.values()].sort(byCountThenDecisions);
    return {
      evaluated: this.evaluated,
      changed: transitions.reduce((sum, { count }) => sum + count, 0),
      transitions: transitions.map(({ from, to, count }) => ({ from, to, count })),
      samples: transitions.flatMap(({ samples }) => samples),
      rules: [...this.rules]
        .map(([rule, changed]) => ({ rule, changed }))
        .sort((a, b) => b.changed - a.changed || compareText(a.rule?.id ?? '', b.rule?.id ?? '')),
    };
  }
}
