import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { ACCOUNT_LIMITS, Bootstrapped, CoreDeps } from '@agov/domain';
import { EXIT, parse, Refusal, UsageError, type Command } from '../command.js';

const DEFAULT_KEY_NAME = 'Admin key';
const OPTIONS = {
  'tenant-name': { type: 'string' },
  email: { type: 'string' },
  'admin-name': { type: 'string' },
  'tenant-id': { type: 'string' },
  'key-name': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const keysCreate: Command = {
  name: 'keys create',
  summary: 'create an admin API key, with a new tenant or for an existing one',
  help: `Usage: agov keys create --tenant-name <name> --email <e-mail> [--admin-name <name>] [--key-name <name>] [--json]
       agov keys create --tenant-id <uuid> [--key-name <name>] [--json]

For self-hosters without the dashboard. With --tenant-name: a new tenant on the free plan, its
admin user (who signs in to the dashboard with this e-mail address) and an API key holding every
scope. With --tenant-id: such a key for an existing tenant. The key's secret is printed once,
on standard output (last line, or "key" with --json); only its hash is stored. Works on the
database the service uses, which must be migrated (agov migrate); an embedded data directory
belongs to one process: stop the service first.

Options:
  --tenant-name <name>   the new tenant's name
  --email <e-mail>       the new admin user's e-mail address
  --admin-name <name>    the new admin user's name (default: the e-mail address before the @)
  --tenant-id <uuid>     an existing tenant, instead of a new one
  --key-name <name>      the key's name (default: "${DEFAULT_KEY_NAME}")
  --json                 print one JSON object: {tenant, user, admin_password, api_key}
  -h, --help             show this help

Environment:
  AGOV_ADMIN_PASSWORD   the new admin user's password (12 to 1024 characters, as the API requires); unset: a random
                        one is generated and printed once beside the key. Never logged
  DATABASE_URL          the PostgreSQL server; unset: embedded PostgreSQL in DATA_DIR
  DATA_DIR              where embedded PostgreSQL keeps its files (default ./.data)
  and the service's other settings (README, Configuration), read and checked as it reads them

Exit status:
  0  created
  1  refused: the database cannot be opened or is not migrated, the e-mail address already has
     an account, or no tenant has that id
  2  bad usage or configuration`,

  async run({ argv, env, out }) {
    const { values } = parse(() => parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }), { min: 0, max: 0 });
    // The domain and the database drivers load only now: help answers at once.
    const { ACCOUNT_LIMITS, AppError, bootstrapTenant, createCaches, isUuid, issueAdminKey, systemClock } = await import('@agov/domain');
    const { openServiceDatabase, requireMigrated } = await import('../database.js');
    const keyName = name('--key-name', values['key-name'] ?? DEFAULT_KEY_NAME, ACCOUNT_LIMITS);
    const request =
      values['tenant-id'] === undefined ? newTenantRequest(values, env, ACCOUNT_LIMITS) : existingTenantRequest(values, isUuid);
    const { config, database } = await openServiceDatabase(env);
    try {
      await requireMigrated(config, database);
      const deps: CoreDeps = { database, clock: systemClock, caches: createCaches() };
      const create = (): Promise<Bootstrapped | (Omit<Bootstrapped, 'user'> & { user: null })> =>
        request.kind === 'new'
          ? bootstrapTenant(deps, { ...request.input, key_name: keyName })
          : issueAdminKey(deps, request.tenantId, keyName).then((issued) => ({ ...issued, user: null }));
      const created = await create().catch((error: unknown) => {
        // The domain's refusals (an e-mail address taken, no such tenant) are the command's.
        throw error instanceof AppError ? new Refusal(error.message) : error;
      });
      const password = request.kind === 'new' && request.generated ? request.input.password : null;
      const { tenant, user, apiKey } = created;
      if (values.json) {
        out(
          JSON.stringify({
            tenant: { id: tenant.id, name: tenant.name },
            user: user && { id: user.id, name: user.name, email: user.email, role: user.role },
            admin_password: password,
            api_key: { id: apiKey.id, name: apiKey.name, key_prefix: apiKey.prefix, scopes: apiKey.scopes, key: apiKey.key },
          }),
        );
        return EXIT.ok;
      }
      if (user) {
        out(`created tenant "${tenant.name}" (id ${tenant.id})`);
        const credential = password === null ? 'password from AGOV_ADMIN_PASSWORD' : `generated password, shown this once: ${password}`;
        out(`created admin user "${user.name}" <${user.email}> (id ${user.id}), ${credential}`);
      }
      const of = user ? '' : ` of tenant "${tenant.name}" (id ${tenant.id})`;
      out(`created API key "${apiKey.name}" (id ${apiKey.id})${of} with every scope; its secret, shown this once:`);
      out(apiKey.key);
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};

type Values = { 'tenant-name'?: string; email?: string; 'admin-name'?: string; 'tenant-id'?: string };

type Limits = typeof ACCOUNT_LIMITS;

/** The API's own check of an e-mail address (ajv-formats' `email`), so the CLI makes no account the API would refuse. */
const isEmail = (text: string) => fullFormats.email instanceof RegExp && fullFormats.email.test(text);

function newTenantRequest(values: Values, env: NodeJS.ProcessEnv, limits: Limits) {
  if (values['tenant-name'] === undefined || values.email === undefined) {
    throw new UsageError('give --tenant-name and --email for a new tenant, or --tenant-id for an existing one');
  }
  const email = values.email;
  if (!isEmail(email) || email.length > limits.emailMaxLength) throw new UsageError(`--email: '${email}' is not an e-mail address`);
  const given = env.AGOV_ADMIN_PASSWORD;
  const { minLength, maxLength } = limits.password;
  if (given !== undefined && (given.length < minLength || given.length > maxLength)) {
    throw new UsageError(`AGOV_ADMIN_PASSWORD must be ${minLength} to ${maxLength} characters long`);
  }
  return {
    kind: 'new' as const,
    generated: given === undefined,
    input: {
      organization_name: name('--tenant-name', values['tenant-name'], limits),
      name: name('--admin-name', values['admin-name'] ?? email.slice(0, email.lastIndexOf('@')), limits),
      email,
      // 144 random bits: as strong as a password gets, and safe to paste anywhere.
      password: given ?? randomBytes(18).toString('base64url'),
    },
  };
}

function existingTenantRequest(values: Values, isUuid: (text: string) => boolean) {
  const given = (['tenant-name', 'email', 'admin-name'] as const).find((option) => values[option] !== undefined);
  if (given) throw new UsageError(`--${given} is for a new tenant; --tenant-id names an existing one`);
  const tenantId = values['tenant-id']!;
  if (!isUuid(tenantId)) throw new UsageError(`--tenant-id: '${tenantId}' is not a UUID`);
  return { kind: 'existing' as const, tenantId };
}

function name(option: string, value: string, limits: Limits): string {
  if (value.trim().length === 0 || value.length > limits.nameMaxLength) {
    throw new UsageError(`${option} must be 1 to ${limits.nameMaxLength} characters long`);
  }
  return value;
}
