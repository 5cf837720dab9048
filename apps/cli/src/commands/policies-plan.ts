import { parseArgs } from 'node:util';
import { EXIT, parse, UsageError, type Command } from '../command.js';
import type { Plan } from '../policies/plan.js';
import { type Service, SERVICE_ENVIRONMENT } from '../policies/service.js';

/** The what-if's window: the last week of recorded evaluations. */
const WHAT_IF_DAYS = 7;
/** Most changes one simulation takes (the API's limit). */
const WHAT_IF_MAX_CHANGES = 100;

export const policiesPlan: Command = {
  name: 'policies plan',
  summary: 'show how a policy file differs from the live rules, and what that would have changed',
  help: `Usage: agov policies plan -f FILE

Compares the policy file with the tenant's live rules, rule by rule: each rule to create (no
id in the file), to update (with each changed field, live value -> file value) or to delete
(live, not in the file), and how many are unchanged. Then the what-if: every evaluation of the
last ${WHAT_IF_DAYS} days decided again under those changes (POST /api/v1/policies/simulate), how
many decisions would change and how. Prints the revision the plan was made against: give it
to agov policies apply --revision so the apply is refused if the rules changed since. Nothing
is written.

Options:
  -f, --file FILE   the policy file
  -h, --help        show this help

${SERVICE_ENVIRONMENT}

Exit status:
  0  planned (whether or not there are changes)
  1  the service refused or could not be reached, or the file names an agent or rule the
     tenant does not have live
  2  bad usage, AGOV_URL or AGOV_API_KEY unset, or the file is unreadable or not a policy file`,

  async run({ argv, env, out, err }) {
    const { values } = parse(
      () => parseArgs({ args: argv, options: { file: { type: 'string', short: 'f' } }, allowPositionals: true, strict: true }),
      { min: 0, max: 0 },
    );
    const { UnreadableFile } = await import('../policies/policy-file.js');
    try {
      const { service, file, live, plan, describePlan } = await planFile(values.file, env);
      out(`plan of ${file.path} against revision ${live.revision}`);
      for (const line of describePlan(plan)) out(line);
      if (plan.changes.length > 0) for (const line of await whatIf(service, plan)) out(line);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof UnreadableFile)) throw error;
      err(`agov policies plan: ${error.message}`);
      return EXIT.usage;
    }
  },
};

/** Reads the file and the live rules, and plans: what plan and apply share. */
export async function planFile(path: string | undefined, env: NodeJS.ProcessEnv) {
  if (path === undefined) throw new UsageError('missing -f FILE, the policy file');
  const { serviceOf } = await import('../policies/service.js');
  const { readPolicyFile } = await import('../policies/policy-file.js');
  const { describePlan, planOf, readLiveRules } = await import('../policies/plan.js');
  const service = serviceOf(env);
  const file = readPolicyFile(path);
  const live = await readLiveRules(service);
  return { service, file, live, plan: planOf(file.agents, live, new Date()), describePlan };
}

interface Simulation {
  evaluated: number;
  changed: number;
  transitions: { from: string; to: string; count: number }[];
}

/** The what-if of the plan's changes over the last WHAT_IF_DAYS days, in lines. */
async function whatIf(service: Service, plan: Plan): Promise<string[]> {
  const to = new Date();
  const from = new Date(to.getTime() - WHAT_IF_DAYS * 86_400_000);
  const window = `${from.toISOString()} to ${to.toISOString()}`;
  if (plan.changes.length > WHAT_IF_MAX_CHANGES) {
    return [`what-if: not run, the plan has more than ${WHAT_IF_MAX_CHANGES} changes (the simulation's limit)`];
  }
  const { data } = await service.post<{ data: Simulation }>('/api/v1/policies/simulate', {
    from: from.toISOString(),
    to: to.toISOString(),
    changes: plan.changes.map(({ change }) => change),
  });
  return [
    `what-if over the last ${WHAT_IF_DAYS} days (${window}): ${data.changed} of ${data.evaluated} evaluations would be decided otherwise`,
    ...data.transitions.map(({ from, to, count }) => `  ${from} -> ${to}: ${count}`),
  ];
}
