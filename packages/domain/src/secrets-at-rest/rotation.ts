import { sql } from 'drizzle-orm';
import { chatIntegrations, webhookEndpoints, type Database } from '@agov/db';

/** Whether any secret is stored at all: every webhook endpoint and every chat integration holds one. */
export async function secretsStored(database: Database): Promise<boolean> {
  const [row] = await database.rows<{ stored: boolean }>(
    sql`select exists (select 1 from ${webhookEndpoints}) or exists (select 1 from ${chatIntegrations}) as stored`,
  );
  return row!.stored;
}
