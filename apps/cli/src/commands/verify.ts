import { parseArgs } from 'node:util';
import { EXIT, parse, type Command } from '../command.js';
import { isAuditExport, readExport, UnreadableExport, verifyAuditFile, verifyTraceFile } from '../verification/exports.js';

export const verify: Command = {
  name: 'verify',
  summary: 'check an exported trace or audit export offline',
  help: `Usage: agov verify <file | -> [--trace <trace export>]...

Reads a JSON file (- reads standard input), recognises what it holds and checks it without
contacting the service:

  A trace export (GET /api/v1/traces/:id/export) or a trace detail (GET /api/v1/traces/:id):
  every event's integrity_hash is recomputed from its fields and the previous event's hash,
  and the first event where the chain breaks is named. An export carries no stored head, so
  events removed from the end of a trace are not detected.

  An audit export (GET /api/v1/audit/export in its JSON form): its rows leave out metadata and
  approval_request_id, which every hash covers, so no hash can be recomputed from them alone.
  Checked: every row has the export's columns, its integrity_hash is a sha256 hash, no event
  appears twice, and rows are in time order. With --trace, each trace export's own chain is
  verified, every row of that trace must equal its event there (fields and integrity_hash),
  and each of its events recorded between the export's first and last rows must have a row,
  in chain order: a kept audit export then also exposes a trace rewritten since.

Options:
  --trace <file>   a trace export to check the audit export's rows against (repeatable)
  -h, --help       show this help

Environment: none.

Exit status:
  0  valid (an audit export without --trace: well-formed)
  1  tampered: the first broken event is named
  2  bad usage, or the file is unreadable, not JSON or not an export`,

  async run({ argv, out, err }) {
    const { values, positionals } = parse(
      () => parseArgs({ args: argv, options: { trace: { type: 'string', multiple: true } }, allowPositionals: true, strict: true }),
      { min: 1, max: 1, name: '<file | ->' },
    );
    try {
      const file = readExport(positionals[0]!);
      const traces = (values.trace ?? []).map(readTraceExport);
      if (!isAuditExport(file) && traces.length > 0) {
        err('agov verify: --trace applies to an audit export, and this file is a trace export');
        return EXIT.usage;
      }
      const verdict = isAuditExport(file) ? await verifyAuditFile(file, traces) : await verifyTraceFile(file);
      out(verdict.report);
      return verdict.valid ? EXIT.ok : EXIT.failed;
    } catch (error) {
      if (!(error instanceof UnreadableExport)) throw error;
      err(`agov verify: ${error.message}`);
      return EXIT.usage;
    }
  },
};

function readTraceExport(path: string): unknown {
  const file = readExport(path);
  if (isAuditExport(file)) throw new UnreadableExport(`${path} is not a trace export`);
  return file;
}
