import { readFileSync } from 'node:fs';
import { ConfigError } from '@agov/config';
import { EXIT, helpOf, Refusal, UsageError, type Command, type ExitCode, type Invocation } from './command.js';
import { keysCreate } from './commands/keys-create.js';
import { migrate } from './commands/migrate.js';
import { policiesApply } from './commands/policies-apply.js';
import { policiesPlan } from './commands/policies-plan.js';
import { policiesPull } from './commands/policies-pull.js';
import { policiesTest } from './commands/policies-test.js';
import { verify } from './commands/verify.js';

const COMMANDS: readonly Command[] = [verify, keysCreate, migrate, policiesPull, policiesPlan, policiesApply, policiesTest];

const OVERVIEW = `agov: Agent Governance from the command line

Usage: agov <command> [options]
       agov help <command>   (or agov <command> --help)

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(16)}${command.summary}`).join('\n')}

Options:
  -h, --help      show this help
  -V, --version   print the version

Environment: each command's help names what it reads.

Exit status:
  0  done (verify: valid)
  1  the command could not do its work (verify: tampered; policies test: a case failed); its
     help says when
  2  bad usage or configuration, or an unreadable file`;

/** The command named by the first arguments (`keys create` takes two), and the rest. */
function resolve(argv: string[]): { command: Command; rest: string[] } | null {
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word)) return { command, rest: argv.slice(words.length) };
  }
  return null;
}

/** The first words of commands of two words: `keys`, `policies`. */
const GROUPS = new Set(COMMANDS.filter(({ name }) => name.includes(' ')).map(({ name }) => name.split(' ')[0]!));

const subcommands = (group: string) =>
  COMMANDS.filter(({ name }) => name.startsWith(`${group} `)).map(({ name }) => name.slice(group.length + 1));

/** A group of one subcommand (`keys`) has its help; a larger one lists its commands. */
function groupHelp(group: string): string {
  const members = COMMANDS.filter(({ name }) => name.startsWith(`${group} `));
  if (members.length === 1) return helpOf(members[0]!);
  return `agov ${group}: ${subcommands(group).join(', ')}

Usage: agov ${group} <command> [options]

Commands:
${members.map((command) => `  ${command.name.padEnd(16)}${command.summary}`).join('\n')}

Each command's --help gives its options, environment and exit status.`;
}

/** `-h`/`--help` anywhere before a `--` asks for help. */
const asksForHelp = (argv: string[]) => {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === '-h' || arg === '--help');
};

async function main(invocation: Invocation): Promise<ExitCode> {
  const { argv, out, err } = invocation;
  const [first] = argv;
  if (first === undefined) return usageProblem(err, 'missing command');
  if (first === '-h' || first === '--help' || (first === 'help' && argv.length === 1)) return print(out, OVERVIEW);
  if (first === '-V' || first === '--version') return print(out, version());
  if (first.startsWith('-')) return usageProblem(err, `unknown option '${first}'`);
  if (first === 'help') {
    const topic = argv.slice(1).join(' ');
    const command = COMMANDS.find(({ name }) => name === topic);
    if (command) return print(out, helpOf(command));
    return GROUPS.has(topic) ? print(out, groupHelp(topic)) : usageProblem(err, `unknown command '${topic}'`);
  }
  const found = resolve(argv);
  if (!found) {
    if (GROUPS.has(first) && asksForHelp(argv.slice(1))) return print(out, groupHelp(first));
    if (GROUPS.has(first) && argv[1] === undefined)
      return usageProblem(err, `'${first}' needs a subcommand: ${subcommands(first).join(', ')}`);
    return usageProblem(err, `unknown command '${GROUPS.has(first) ? argv.slice(0, 2).join(' ') : first}'`);
  }
  const { command, rest } = found;
  if (asksForHelp(rest)) return print(out, helpOf(command));
  try {
    return await command.run({ ...invocation, argv: rest });
  } catch (error) {
    if (error instanceof UsageError) {
      err(`agov ${command.name}: ${error.message}`);
      err(`Try 'agov ${command.name} --help'.`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      err(`agov ${command.name}: ${error.message}`);
      return EXIT.usage;
    }
    // A refusal explains itself; anything else is a fault, whose stack helps whoever reports it.
    err(`agov ${command.name}: ${error instanceof Refusal ? error.message : ((error as Error).stack ?? String(error))}`);
    return EXIT.failed;
  }
}

function print(out: Invocation['out'], text: string): ExitCode {
  out(text);
  return EXIT.ok;
}

function usageProblem(err: Invocation['err'], problem: string): ExitCode {
  err(`agov: ${problem}`);
  err(`Try 'agov --help'.`);
  return EXIT.usage;
}

/** The package's version: the service's, which every workspace shares. */
function version(): string {
  // src/ and dist/ both sit beside package.json.
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Runs `agov` with this process's arguments (as typed after the command), environment and output. */
export const runProcess = (argv: string[]): Promise<ExitCode> =>
  main({
    argv,
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
