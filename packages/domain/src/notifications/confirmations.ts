import { and, eq, inArray, isNotNull, isNull, max, sql } from 'drizzle-orm';
import { emailConfirmations, type Executor, type Tx } from '@agov/db';
import type { NotificationDeps } from './deps.js';
import { AppError } from '../support/errors.js';
import { recordEffects } from '../outbox/record.js';
import { sha256Hex } from '../support/sha256.js';

/** An address gets at most one confirmation mail in this time, whichever tenants list it. */
export const CONFIRMATION_INTERVAL_MS = 24 * 3_600_000;

/** Addresses are compared, and confirmations kept, in lower case. */
const keyOf = (address: string) => address.toLowerCase();

/** The tenant's confirmed addresses among `addresses`, lower-cased. */
async function confirmedKeys(executor: Executor, tenantId: string, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await executor
    .select({ email: emailConfirmations.email })
    .from(emailConfirmations)
    .where(
      and(
        eq(emailConfirmations.tenantId, tenantId),
        inArray(emailConfirmations.email, addresses.map(keyOf)),
        isNotNull(emailConfirmations.confirmedAt),
      ),
    );
  return new Set(rows.map((row) => row.email));
}

/** The addresses, as written, whose owners confirmed them for this tenant: the only ones that get its approval mail. */
export async function confirmedAmong(executor: Executor, tenantId: string, addresses: readonly string[]): Promise<string[]> {
  const confirmed = await confirmedKeys(executor, tenantId, addresses);
  return addresses.filter((address) => confirmed.has(keyOf(address)));
}

/** The addresses, as written, not (yet) confirmed for this tenant. */
export async function unconfirmedAmong(executor: Executor, tenantId: string, addresses: readonly string[]): Promise<string[]> {
  const confirmed = await confirmedKeys(executor, tenantId, addresses);
  return addresses.filter((address) => !confirmed.has(keyOf(address)));
}

/**
 * In the transaction that saves the tenant's reviewers: records a confirmation mail to each
 * listed address not confirmed for this tenant, unless one went to that address, from any
 * tenant, within CONFIRMATION_INTERVAL_MS. The mail's link gets its token when it is sent
 * (see confirmation-email.ts), so no token waits anywhere in clear.
 */
export async function requestConfirmations(tx: Tx, tenantId: string, addresses: readonly string[], now: Date): Promise<void> {
  const confirmed = await confirmedKeys(tx, tenantId, addresses);
  const unconfirmed = [...new Set(addresses.map(keyOf))].filter((email) => !confirmed.has(email)).sort();
  if (unconfirmed.length === 0) return;

  // Two tenants listing one address at the same moment must not both mail it: whoever saves
  // second waits here, then sees the first one's mail. Taken in order, so never a deadlock.
  const listed = sql.join(
    unconfirmed.map((email) => sql`${email}`),
    sql`, `,
  );
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('email_confirmation:' || email, 0))
    from unnest(array[${listed}]::text[]) as email order by email`);
  const lastSent = await tx
    .select({ email: emailConfirmations.email, at: max(emailConfirmations.sentAt) })
    .from(emailConfirmations)
    .where(inArray(emailConfirmations.email, unconfirmed))
    .groupBy(emailConfirmations.email);
  const recent = new Set(
    lastSent.filter((row) => row.at !== null && now.getTime() - row.at.getTime() < CONFIRMATION_INTERVAL_MS).map((row) => row.email),
  );
  const due = unconfirmed.filter((email) => !recent.has(email));
  if (due.length === 0) return;

  await tx
    .insert(emailConfirmations)
    .values(due.map((email) => ({ tenantId, email, sentAt: now })))
    .onConflictDoUpdate({ target: [emailConfirmations.tenantId, emailConfirmations.email], set: { sentAt: now } });
  await recordEffects(
    tx,
    tenantId,
    due.map((email) => ({ kind: 'email_confirmation', email })),
    now,
  );
}

/**
 * Confirms the address a link was sent to, for the tenant that listed it. The token works
 * once: it is cleared as it is used, so a second use finds nothing, like a token never issued.
 */
export async function confirmEmail(deps: NotificationDeps, token: string): Promise<void> {
  const [confirmed] = await deps.database.db
    .update(emailConfirmations)
    .set({ confirmedAt: deps.clock.now(), tokenHash: null })
    .where(and(eq(emailConfirmations.tokenHash, sha256Hex(token)), isNull(emailConfirmations.confirmedAt)))
    .returning({ email: emailConfirmations.email });
  if (!confirmed) throw new AppError('not_found', 'This confirmation link is not valid or was already used');
}
