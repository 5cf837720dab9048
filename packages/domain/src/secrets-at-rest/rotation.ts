import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { chatIntegrations, grantSigningKeys, webhookEndpoints, type Database, type Db, type Tx } from '@agov/db';
import { CHAT_SECRET_FIELDS, chatSettingPlace, grantKeyPlace, webhookSecretPlace } from './places.js';
import type { SecretBox } from './secret-box.js';

/** What a rotation did, in values: sealed anew, and already under the current key. */
export interface RotationCount {
  resealed: number;
  current: number;
}

/** Whether any secret is stored at all: every webhook endpoint, chat integration and grant signing key holds one. */
export async function secretsStored(database: Database): Promise<boolean> {
  const [row] = await database.rows<{ stored: boolean }>(
    sql`select exists (select 1 from ${webhookEndpoints}) or exists (select 1 from ${chatIntegrations})
      or exists (select 1 from ${grantSigningKeys}) as stored`,
  );
  return row!.stored;
}

/**
 * Seals every stored secret under the box's current key: values under the previous key, and
 * plain ones stored before encryption. Rows are read in primary-key order, `batchSize` at a
 * time, each batch written in one transaction. A row is rewritten only if it still holds what
 * was read, so a secret saved meanwhile (sealed by the service) is never overwritten. Running
 * it again finds nothing to do.
 */
export async function resealStoredSecrets(db: Db, box: SecretBox, batchSize: number): Promise<RotationCount> {
  const count: RotationCount = { resealed: 0, current: 0 };
  await inBatches(
    db,
    (after) =>
      db
        .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret })
        .from(webhookEndpoints)
        .where(gt(webhookEndpoints.id, after))
        .orderBy(asc(webhookEndpoints.id))
        .limit(batchSize),
    (row) => row.id,
    async (tx, row) => {
      const sealed = box.reseal(row.secret, webhookSecretPlace(row.id));
      if (sealed === null) {
        count.current += 1;
        return;
      }
      const moved = await tx
        .update(webhookEndpoints)
        .set({ secret: sealed })
        .where(and(eq(webhookEndpoints.id, row.id), eq(webhookEndpoints.secret, row.secret)))
        .returning({ id: webhookEndpoints.id });
      count.resealed += moved.length;
    },
  );
  await inBatches(
    db,
    (after) =>
      db
        .select({ tenantId: chatIntegrations.tenantId, settings: chatIntegrations.settings })
        .from(chatIntegrations)
        .where(gt(chatIntegrations.tenantId, after))
        .orderBy(asc(chatIntegrations.tenantId))
        .limit(batchSize),
    (row) => row.tenantId,
    async (tx, row) => {
      const settings = { ...row.settings };
      let resealed = 0;
      for (const field of Object.keys(settings).filter((name) => CHAT_SECRET_FIELDS.has(name))) {
        const sealed = box.reseal(settings[field]!, chatSettingPlace(row.tenantId, field));
        if (sealed === null) count.current += 1;
        else {
          settings[field] = sealed;
          resealed += 1;
        }
      }
      if (resealed === 0) return;
      const moved = await tx
        .update(chatIntegrations)
        .set({ settings })
        .where(and(eq(chatIntegrations.tenantId, row.tenantId), sql`${chatIntegrations.settings} = ${JSON.stringify(row.settings)}::jsonb`))
        .returning({ tenantId: chatIntegrations.tenantId });
      if (moved.length > 0) count.resealed += resealed;
    },
  );
  await inBatches(
    db,
    (after) =>
      db
        .select({ kid: grantSigningKeys.kid, privateKey: grantSigningKeys.privateKey })
        .from(grantSigningKeys)
        .where(gt(grantSigningKeys.kid, after))
        .orderBy(asc(grantSigningKeys.kid))
        .limit(batchSize),
    (row) => row.kid,
    async (tx, row) => {
      const sealed = box.reseal(row.privateKey, grantKeyPlace(row.kid));
      if (sealed === null) {
        count.current += 1;
        return;
      }
      const moved = await tx
        .update(grantSigningKeys)
        .set({ privateKey: sealed })
        .where(and(eq(grantSigningKeys.kid, row.kid), eq(grantSigningKeys.privateKey, row.privateKey)))
        .returning({ kid: grantSigningKeys.kid });
      count.resealed += moved.length;
    },
    FIRST_TEXT,
  );
  return count;
}

const FIRST_UUID = '00000000-0000-0000-0000-000000000000';
/** Sorts before every text key (grant key ids are base64url, which may begin with `-`). */
const FIRST_TEXT = '';

/** Reads the rows keyed after the last one handled, a batch at a time, and handles each batch in one transaction. */
async function inBatches<Row>(
  db: Db,
  read: (after: string) => Promise<Row[]>,
  keyOf: (row: Row) => string,
  each: (tx: Tx, row: Row) => Promise<void>,
  first = FIRST_UUID,
): Promise<void> {
  for (let after = first; ; ) {
    const rows = await read(after);
    if (rows.length === 0) return;
    await db.transaction(async (tx) => {
      for (const row of rows) await each(tx, row);
    });
    after = keyOf(rows.at(-1)!);
  }
}
