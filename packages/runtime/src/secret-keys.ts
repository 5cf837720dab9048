import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, SECRETS_KEY_HOWTO, type Config } from '@agov/config';
import type { Database } from '@agov/db';
import { secretBox, secretsStored, type SecretBox } from '@agov/domain';
import type { Logger } from 'pino';

/** The key generated when none is configured, beside the embedded database's files. */
export const KEY_FILE = 'secrets.key';

const REQUIRED =
  'is required: this database stores webhook or chat secrets, which are encrypted with it. Set it to the key they were ' +
  `encrypted with; if none was ever set, ${SECRETS_KEY_HOWTO}, and run \`npm run secrets:rotate\` to encrypt what was stored before`;

/**
 * The box of stored secrets, with its key chosen here:
 * - `SECRETS_KEY` when set (and `SECRETS_KEY_PREVIOUS` to read during a rotation);
 * - in production on a PostgreSQL server, none: start-up is refused once any secret is stored,
 *   since nothing could read it, and until then saving one is refused (503);
 * - otherwise (embedded PostgreSQL, or development) `DATA_DIR/secrets.key`, made on first start.
 * The database must be migrated.
 */
export async function createSecretBox(config: Config, database: Database, logger: Logger): Promise<SecretBox> {
  const { key, previousKey } = config.secrets;
  if (key) return secretBox({ current: key, previous: previousKey });
  if (config.mode === 'production' && config.databaseUrl) {
    if (await secretsStored(database)) throw new ConfigError('SECRETS_KEY', REQUIRED);
    logger.warn(`SECRETS_KEY is not set: webhook endpoints and chat settings cannot be saved until it is (${SECRETS_KEY_HOWTO})`);
    return secretBox({ current: null, previous: null });
  }
  // Without SECRETS_KEY there is no previous key either (config refuses that).
  return secretBox({ current: keyFile(config.dataDir, logger), previous: null });
}

/** The key in `dataDir`, generated (mode 0600) and announced once if there is none yet. */
function keyFile(dataDir: string, logger: Logger): Buffer {
  const path = resolve(dataDir, KEY_FILE);
  try {
    return readKey(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  // Written aside, then linked into place: another process starting now reads the whole key
  // or none, and of two new keys exactly one is kept.
  const draft = `${path}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, path);
    logger.warn(
      { path },
      'SECRETS_KEY is not set: generated a key for the stored secrets in this file. Keep it with the data; without it they cannot be read',
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  return readKey(path);
}

function readKey(path: string): Buffer {
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold base64 of 32 bytes: restore it from a backup, or set SECRETS_KEY`);
  return key;
}
