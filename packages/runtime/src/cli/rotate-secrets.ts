import { ConfigError, loadConfig, SECRETS_KEY_HOWTO } from '@agov/config';
import { openDatabase } from '@agov/db';
import { resealStoredSecrets } from '@agov/domain';
import { createLogger } from '../logger.js';
import { createSecretBox } from '../secret-keys.js';

/** Rows read and rewritten per transaction: short transactions, whatever the number of tenants. */
const BATCH_SIZE = 100;

/**
 * Re-encrypts every stored secret under the current key (`SECRETS_KEY`, or the key file where
 * the service would use one), reading values under `SECRETS_KEY_PREVIOUS` and plain ones
 * stored before encryption. Safe to run while the service runs on a PostgreSQL server, and to
 * run again.
 */
const config = loadConfig();
const database = await openDatabase(config);
try {
  const box = await createSecretBox(config, database, createLogger(config));
  if (box.keyId === null) {
    throw new ConfigError('SECRETS_KEY', `is required: it is the key secrets are re-encrypted under (${SECRETS_KEY_HOWTO})`);
  }
  const { resealed, current } = await resealStoredSecrets(database.db, box, BATCH_SIZE);
  console.log(`re-encrypted ${resealed} secrets under key ${box.keyId}; ${current} were already under it`);
} finally {
  await database.close();
}
