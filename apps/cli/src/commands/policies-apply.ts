import { basename } from 'node:path';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXIT, parse, Refusal, type Command } from '../command.js';
import { SERVICE_ENVIRONMENT } from '../policies/service.js';
import { planFile } from './policies-plan.js';

export const policiesApply: Command = {
  name: 'policies apply',
  summary: 'make the live rules equal to a policy file, in one transaction',
  help: `Usage: agov policies apply -f FILE [--revision R]

Plans as agov policies plan does (without the what-if), prints the plan and applies it in one
transaction (POST /api/v1/policies/apply): all of it or nothing. Every rule created or updated
gets a new version whose change summary names the file and the SHA-256 digest of its bytes;
deleted rules are deactivated. The ids of created rules are written into the file, beside the
comments it had, so the next plan finds them. The apply is refused if the live rules are no
longer at the revision: R with --revision (the one agov policies plan printed), else the one
read just before planning.

Options:
  -f, --file FILE    the policy file
  --revision R       refuse unless the live rules are still at this revision
  -h, --help         show this help

${SERVICE_ENVIRONMENT}

Exit status:
  0  applied, or nothing to apply
  1  refused: the rules changed since the revision, the service refused a change (its message
     names it) or could not be reached, or the file names an agent or rule the tenant does not
     have live
  2  bad usage, AGOV_URL or AGOV_API_KEY unset, or the file is unreadable or not a policy file`,

  async run({ argv, env, out, err }) {
    const { values } = parse(
      () =>
        parseArgs({
          args: argv,
          options: { file: { type: 'string', short: 'f' }, revision: { type: 'string' } },
          allowPositionals: true,
          strict: true,
        }),
      { min: 0, max: 0 },
    );
    const { recordCreatedId, UnreadableFile } = await import('../policies/policy-file.js');
    const { ServiceError } = await import('../policies/service.js');
    try {
      const { service, file, live, plan, describePlan } = await planFile(values.file, env);
      const revision = values.revision ?? live.revision;
      out(`plan of ${file.path} against revision ${revision}`);
      for (const line of describePlan(plan)) out(line);
      if (plan.changes.length === 0) {
        out('nothing to apply');
        return EXIT.ok;
      }
      const body = {
        revision,
        change_summary: `Applied from ${basename(file.path)} (${file.digest})`,
        changes: plan.changes.map(({ change }) => change),
      };
      const applied = await service
        .post<{ data: { revision: string; created: string[] } }>('/api/v1/policies/apply', body)
        .catch((error) => {
          if (error instanceof ServiceError && error.status === 409 && typeof error.details?.revision === 'string') {
            throw new Refusal(
              `the live rules changed since revision ${revision} (now ${error.details.revision}): nothing applied; plan again`,
            );
          }
          throw error;
        });
      const creates = plan.changes.filter(({ change }) => change.action === 'create');
      for (const [index, { at }] of creates.entries()) {
        recordCreatedId(file.document, at!.agent, at!.rule, applied.data.created[index]!);
      }
      if (creates.length > 0) writeFileSync(file.path, file.document.toString());
      out(`applied; the rules are now at revision ${applied.data.revision}`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof UnreadableFile)) throw error;
      err(`agov policies apply: ${error.message}`);
      return EXIT.usage;
    }
  },
};
