import { parseArgs } from 'node:util';
import { EXIT, parse, UsageError, type Command } from '../command.js';

export const policiesTest: Command = {
  name: 'policies test',
  summary: 'decide test cases against a policy file offline',
  help: `Usage: agov policies test -f FILE -t CASES

Decides each case of CASES under the rules of the policy file FILE, with the service's own
decision code, without contacting the service: for a tenant's CI, before apply. CASES is YAML:

  cases:
    - name: small refunds pass           # printed with the result
      agent: Support bot                 # an agent of FILE, by name or id (or request.agent_id)
      agent_fields:                      # optional; the agent is active unless said otherwise
        lifecycle_state: active          # also authority_model, identity_mode, delegation_model,
        autonomy_tier: high              # environment, and metadata for conditions
      request:                           # evaluate's body
        operation: write
        target_integration: stripe
        resource_scope: refunds/*
        data_classification: confidential
        context: { amount: 40 }
      expect: allow                      # allow, approval_required or deny
      expect_rule: Small refunds         # optional: the deciding rule's policy_name; null for none

Each case prints one line, "pass" or "FAIL" with what was expected and what was decided, then a
count. On equal priority and effect, the rule listed first in FILE ranks first (in the service,
the oldest; a pulled file lists rules oldest first).

Options:
  -f, --file FILE    the policy file
  -t, --cases CASES  the cases file
  -h, --help         show this help

Environment: none.

Exit status:
  0  every case passed
  1  a case failed
  2  bad usage, or a file is unreadable, not YAML, or not a policy or cases file (a rule's
     invalid condition included)`,

  async run({ argv, out, err }) {
    const { values } = parse(
      () =>
        parseArgs({
          args: argv,
          options: { file: { type: 'string', short: 'f' }, cases: { type: 'string', short: 't' } },
          allowPositionals: true,
          strict: true,
        }),
      { min: 0, max: 0 },
    );
    if (values.file === undefined) throw new UsageError('missing -f FILE, the policy file');
    if (values.cases === undefined) throw new UsageError('missing -t CASES, the cases file');
    const { readPolicyFile, UnreadableFile } = await import('../policies/policy-file.js');
    const { readCases, runCase } = await import('../policies/cases.js');
    const { AppError } = await import('@agov/domain');
    try {
      const { agents } = readPolicyFile(values.file);
      const results = readCases(values.cases, agents).map((test) => runCase(test, agents.indexOf(test.agent)));
      for (const { line } of results) out(line);
      const failed = results.filter(({ passed }) => !passed).length;
      out(`${results.length} cases: ${results.length - failed} passed, ${failed} failed`);
      return failed === 0 ? EXIT.ok : EXIT.failed;
    } catch (error) {
      // A rule whose condition the service would refuse: the file is not a valid policy file.
      const message =
        error instanceof UnreadableFile ? error.message : error instanceof AppError ? `${values.file}: ${error.message}` : null;
      if (message === null) throw error;
      err(`agov policies test: ${message}`);
      return EXIT.usage;
    }
  },
};
