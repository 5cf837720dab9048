import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXIT, parse, type Command } from '../command.js';
import { SERVICE_ENVIRONMENT } from '../policies/service.js';

export const policiesPull: Command = {
  name: 'policies pull',
  summary: "write the tenant's rules as one YAML policy file",
  help: `Usage: agov policies pull [-o FILE]

Reads the tenant's agents and active rules and writes them as YAML: one entry per agent (by
name, then id) with its name, id and rules (oldest first), each rule with its id and every
field a rule's create body takes but agent_id, modified_by and modified_at. Without -o the
file goes to standard output. With -o FILE, an existing policy file is updated in place:
comments on the agents, rules and fields still there are kept. docs/policy-changes.md,
"Policies as code", describes the format.

Options:
  -o, --output FILE   write (or update) this file instead of standard output
  -h, --help          show this help

${SERVICE_ENVIRONMENT}

Exit status:
  0  written
  1  the service refused or could not be reached
  2  bad usage, AGOV_URL or AGOV_API_KEY unset, or -o names a file that is not a policy file`,

  async run({ argv, env, out, err }) {
    const { values } = parse(
      () => parseArgs({ args: argv, options: { output: { type: 'string', short: 'o' } }, allowPositionals: true, strict: true }),
      { min: 0, max: 0 },
    );
    const { serviceOf } = await import('../policies/service.js');
    const { asPolicyFile, readLiveRules } = await import('../policies/plan.js');
    const { pulledDocument, readPolicyDocument, UnreadableFile } = await import('../policies/policy-file.js');
    const service = serviceOf(env);
    const path = values.output;
    try {
      const existing = path !== undefined && existsSync(path) ? readPolicyDocument(path) : null;
      const live = await readLiveRules(service);
      const document = pulledDocument(asPolicyFile(live), existing);
      if (path === undefined) {
        out(document.toString().replace(/\n$/, ''));
        return EXIT.ok;
      }
      writeFileSync(path, document.toString());
      out(`wrote ${live.rules.length} rules of ${live.agents.length} agents to ${path} (revision ${live.revision})`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof UnreadableFile)) throw error;
      err(`agov policies pull: ${error.message}`);
      return EXIT.usage;
    }
  },
};
