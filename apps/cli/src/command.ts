/** What a command's process exits with; every command's help states what each means for it. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What a command may touch of its process: its arguments, environment and output streams. */
export interface Invocation {
  argv: string[];
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

export interface Command {
  /** As typed after `agov`: `verify`, `keys create`, `migrate`. */
  name: string;
  /** One line for `agov --help`; also the help text's first line after the name. */
  summary: string;
  /** The rest of `--help`: usage, what it does, options, environment, exit status. */
  help: string;
  run(invocation: Invocation): Promise<ExitCode>;
}

/** The full help text: its first line names the command and says what it does. */
export const helpOf = (command: Command) => `agov ${command.name}: ${command.summary}\n\n${command.help}`;

/** Bad usage: reported on one line with a pointer to the command's help, exit 2. */
export class UsageError extends Error {}

/**
 * Runs a strict `parseArgs` call: an unknown option or a missing value is a UsageError. Then
 * the positional arguments must number between `min` and `max`.
 */
export function parse<T extends { positionals: string[] }>(
  parseArgsCall: () => T,
  positionals: { min: number; max: number; name?: string },
): T {
  let parsed: T;
  try {
    parsed = parseArgsCall();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length < positionals.min) throw new UsageError(`missing argument ${positionals.name ?? ''}`.trimEnd());
  if (parsed.positionals.length > positionals.max) throw new UsageError(`unexpected argument '${parsed.positionals[positionals.max]}'`);
  return parsed;
}

/** The command ran and could not do its work (the reason is its message): exit 1. */
export class Refusal extends Error {}
