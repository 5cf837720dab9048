import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agov } from './run.js';

const firstLine = (text: string) => text.split('\n')[0];
const FIRST_LINES = {
  verify: 'agov verify: check an exported trace or audit export offline',
  'keys create': 'agov keys create: create an admin API key, with a new tenant or for an existing one',
  migrate: 'agov migrate: apply the database migrations the service needs',
  'policies pull': "agov policies pull: write the tenant's rules as one YAML policy file",
  'policies plan': 'agov policies plan: show how a policy file differs from the live rules, and what that would have changed',
  'policies apply': 'agov policies apply: make the live rules equal to a policy file, in one transaction',
  'policies test': 'agov policies test: decide test cases against a policy file offline',
};

describe('agov help', () => {
  it('prints the overview with --help, -h and help, exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const run = await agov(args);
      expect(run.status).toBe(0);
      expect(firstLine(run.stdout)).toBe('agov: Agent Governance from the command line');
      expect(run.stdout).toContain('\n  verify          check an exported trace or audit export offline\n');
      expect(run.stdout).toContain('\n  keys create     create an admin API key, with a new tenant or for an existing one\n');
      expect(run.stdout).toContain('\n  migrate         apply the database migrations the service needs\n');
      expect(run.stdout).toContain('\n  policies apply  make the live rules equal to a policy file, in one transaction\n');
      expect(run.stderr).toBe('');
    }
  });

  it("prints each command's help with --help, -h and help <command>, exit 0", async () => {
    for (const [name, line] of Object.entries(FIRST_LINES)) {
      const words = name.split(' ');
      for (const args of [
        [...words, '--help'],
        [...words, '-h'],
        ['help', ...words],
        [...words, 'whatever', '--bogus', '--help'],
      ]) {
        const run = await agov(args);
        expect(run.status, args.join(' ')).toBe(0);
        expect(firstLine(run.stdout)).toBe(line);
        expect(run.stdout).toMatch(/\nUsage: agov /);
        expect(run.stdout).toMatch(/\nEnvironment:/);
        expect(run.stdout).toMatch(/\nExit status:\n {2}0 {2}.+\n {2}1 {2}.+\n(.+\n)* {2}2 {2}/);
      }
    }
    // `keys` has one subcommand, whose help is the group's.
    for (const args of [
      ['help', 'keys'],
      ['keys', '--help'],
    ]) {
      expect(firstLine((await agov(args)).stdout)).toBe(FIRST_LINES['keys create']);
    }
    // `policies` has four, which its help lists.
    for (const args of [
      ['help', 'policies'],
      ['policies', '--help'],
    ]) {
      const run = await agov(args);
      expect(run.status).toBe(0);
      expect(firstLine(run.stdout)).toBe('agov policies: pull, plan, apply, test');
      expect(run.stdout).toContain('\n  policies test   decide test cases against a policy file offline\n');
    }
  });

  it('prints the version every workspace shares', async () => {
    const run = await agov(['--version']);
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(run).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('answers an unknown command or a bad option with one line and a hint on stderr, exit 2', async () => {
    const cases: [string[], string][] = [
      [[], "agov: missing command\nTry 'agov --help'.\n"],
      [['deploy'], "agov: unknown command 'deploy'\nTry 'agov --help'.\n"],
      [['--bogus'], "agov: unknown option '--bogus'\nTry 'agov --help'.\n"],
      [['keys'], "agov: 'keys' needs a subcommand: create\nTry 'agov --help'.\n"],
      [['keys', 'delete'], "agov: unknown command 'keys delete'\nTry 'agov --help'.\n"],
      [['policies'], "agov: 'policies' needs a subcommand: pull, plan, apply, test\nTry 'agov --help'.\n"],
      [['policies', 'push'], "agov: unknown command 'policies push'\nTry 'agov --help'.\n"],
      [['policies', 'plan'], "agov policies plan: missing -f FILE, the policy file\nTry 'agov policies plan --help'.\n"],
      [['policies', 'test', '-f', 'p.yaml'], "agov policies test: missing -t CASES, the cases file\nTry 'agov policies test --help'.\n"],
      [['help', 'deploy'], "agov: unknown command 'deploy'\nTry 'agov --help'.\n"],
      [['verify'], "agov verify: missing argument <file | ->\nTry 'agov verify --help'.\n"],
      [['verify', 'a.json', 'b.json'], "agov verify: unexpected argument 'b.json'\nTry 'agov verify --help'.\n"],
      [['verify', '--trace'], "agov verify: Option '--trace <value>' argument missing\nTry 'agov verify --help'.\n"],
      [['migrate', 'now'], "agov migrate: unexpected argument 'now'\nTry 'agov migrate --help'.\n"],
      [
        ['keys', 'create', '--tenant'],
        expect.stringMatching(/^agov keys create: Unknown option '--tenant'\..*\nTry 'agov keys create --help'\.\n$/),
      ],
      [
        ['keys', 'create'],
        "agov keys create: give --tenant-name and --email for a new tenant, or --tenant-id for an existing one\nTry 'agov keys create --help'.\n",
      ],
      [['keys', 'create', '--tenant-id', 'nope'], "agov keys create: --tenant-id: 'nope' is not a UUID\nTry 'agov keys create --help'.\n"],
      [
        ['keys', 'create', '--tenant-id', '8c4e5e43-4a7f-4b7e-9c55-0b2f4d0f7a10', '--email', 'a@b.example'],
        "agov keys create: --email is for a new tenant; --tenant-id names an existing one\nTry 'agov keys create --help'.\n",
      ],
      [
        ['keys', 'create', '--tenant-name', 'Acme', '--email', 'not-an-address'],
        "agov keys create: --email: 'not-an-address' is not an e-mail address\nTry 'agov keys create --help'.\n",
      ],
      [
        ['keys', 'create', '--tenant-name', ' ', '--email', 'a@b.example'],
        "agov keys create: --tenant-name must be 1 to 200 characters long\nTry 'agov keys create --help'.\n",
      ],
    ];
    for (const [args, stderr] of cases) {
      expect(await agov(args), args.join(' ')).toEqual({ status: 2, stdout: '', stderr });
    }
  });

  it('refuses a password that is too short, and a bad setting of the service, with exit 2', async () => {
    const newTenant = ['keys', 'create', '--tenant-name', 'Acme', '--email', 'a@b.example'];
    expect(await agov(newTenant, { env: { AGOV_ADMIN_PASSWORD: 'short' } })).toEqual({
      status: 2,
      stdout: '',
      stderr: "agov keys create: AGOV_ADMIN_PASSWORD must be 12 to 1024 characters long\nTry 'agov keys create --help'.\n",
    });
    const badPool = await agov(['migrate'], { env: { DATABASE_POOL_SIZE: 'many' } });
    expect(badPool.status).toBe(2);
    expect(badPool.stdout).toBe('');
    expect(badPool.stderr).toMatch(/^agov migrate: .*DATABASE_POOL_SIZE.*\n$/);
  });
});
