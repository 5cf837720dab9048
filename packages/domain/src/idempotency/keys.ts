import { and, eq, lte, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { randomUUID } from 'node:crypto';
import { idempotencyKeys } from '@agov/db';
import type { Principal } from '../access/access.js';
import type { CoreDeps } from '../caches/caches.js';
import { idempotentAnswerPlace } from '../secrets-at-rest/places.js';
import { AppError } from '../support/errors.js';
import type { IdempotencyDeps } from './deps.js';

/** How long the first answer to a key is given again (CONTRACT, "Integration decisions"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1_000;

/**
 * How long a claim belongs to its request. Longer than any request runs (a request is a few
 * statements, each cut off by DATABASE_STATEMENT_TIMEOUT_MS, 15 s by default), so a claim
 * still inside its lease is a request still running; past it, the process that held it is
 * taken for dead and a retry takes the key over.
 */
export const IDEMPOTENCY_LEASE_MS = 5 * 60 * 1_000;

/** What a request sent with a key and a fingerprint: which request it is, not what it asks. */
export interface IdempotentRequest {
  key: string;
  fingerprint: string;
}

/** The answer a request gave, as it is stored and given again. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim = { kind: 'claimed'; claimId: string } | { kind: 'replay'; answer: StoredAnswer };

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** Why a header value cannot be an idempotency key, or null when it can: 1–255 printable ASCII characters. */
export function idempotencyKeyProblem(value: string): string | null {
  return PRINTABLE_ASCII.test(value) ? null : 'must be 1 to 255 printable ASCII characters';
}

const inTenant = (tenantId: string, key: string) => and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key));

/**
 * Claims `key` for this request, in one statement: it inserts the claim, or finds the row
 * that holds the key and takes it over if that row has expired or its lease has run out;
 * otherwise it leaves the row as it is and reads it. The row is locked by the statement, so
 * of concurrent requests with one key exactly one claims it. Then:
 * - claimed: the request does its work, and stores its answer or releases the key;
 * - the same request, answered: the stored answer, to give again;
 * - another method, path or body: 422 `idempotency_key_reused`, whatever the row's state;
 * - the same request, still running: 409 `conflict`.
 */
export async function claimIdempotencyKey(deps: IdempotencyDeps, principal: Principal, request: IdempotentRequest): Promise<Claim> {
  const now = deps.clock.now();
  const claimId = randomUUID();
  const t = idempotencyKeys;
  const free = or(lte(t.expiresAt, now), and(eq(t.state, 'in_progress'), lte(t.lockedUntil, now)))!;
  const ours = (column: PgColumn): SQL => sql`case when ${free} then excluded.${sql.identifier(column.name)} else ${column} end`;
  const [row] = await deps.database.db
    .insert(t)
    .values({
      tenantId: principal.tenantId,
      key: request.key,
      fingerprint: request.fingerprint,
      claimId,
      state: 'in_progress',
      status: null,
      headers: null,
      body: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
    })
    .onConflictDoUpdate({
      target: [t.tenantId, t.key],
      set: {
        fingerprint: ours(t.fingerprint),
        claimId: ours(t.claimId),
        state: ours(t.state),
        status: ours(t.status),
        headers: ours(t.headers),
        body: ours(t.body),
        createdAt: ours(t.createdAt),
        expiresAt: ours(t.expiresAt),
        lockedUntil: ours(t.lockedUntil),
      },
    })
    .returning();
  if (!row) throw new Error('claiming an idempotency key returned no row');
  if (row.claimId === claimId) return { kind: 'claimed', claimId };
  if (row.fingerprint !== request.fingerprint) {
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with another method, path or body; send a new key for a new request',
      { header: 'Idempotency-Key' },
    );
  }
  if (row.state === 'done' && row.status !== null && row.headers !== null && row.body !== null) {
    const body = deps.secrets.open(row.body, idempotentAnswerPlace(principal.tenantId, request.key));
    return { kind: 'replay', answer: { status: row.status, headers: row.headers, body } };
  }
  throw new AppError('conflict', 'A request with this Idempotency-Key is still being processed; retry once it has been answered', {
    header: 'Idempotency-Key',
  });
}

/**
 * Stores the answer of the request that holds the claim. A request whose lease ran out and
 * whose key was taken over stores nothing: the key belongs to the request that took it. The
 * body is sealed under SECRETS_KEY, as stored secrets are: an answer may carry a new API key
 * or a webhook's signing secret. A service without a key (it then stores no secrets of its
 * own either) keeps the body as it is.
 */
export async function storeIdempotentAnswer(
  deps: IdempotencyDeps,
  principal: Principal,
  key: string,
  claimId: string,
  answer: StoredAnswer,
) {
  const body = deps.secrets.keyId === null ? answer.body : deps.secrets.seal(answer.body, idempotentAnswerPlace(principal.tenantId, key));
  await deps.database.db
    .update(idempotencyKeys)
    .set({ state: 'done', status: answer.status, headers: answer.headers, body })
    .where(and(inTenant(principal.tenantId, key), eq(idempotencyKeys.claimId, claimId)));
}

/** Lets the key go, so that a retry does the work: for answers that must not be given again (5xx). */
export async function releaseIdempotencyKey(deps: CoreDeps, principal: Principal, key: string, claimId: string) {
  await deps.database.db.delete(idempotencyKeys).where(and(inTenant(principal.tenantId, key), eq(idempotencyKeys.claimId, claimId)));
}

/**
 * Deletes keys past their 24 hours, `batch` rows a statement, until a batch comes back short;
 * returns how many. An expired row is never given again even before it is deleted (a claim
 * takes it over): this only keeps the table to the last day's keys.
 */
export async function deleteExpiredIdempotencyKeys(deps: CoreDeps, batch = 1_000): Promise<number> {
  const t = idempotencyKeys;
  let deleted = 0;
  for (;;) {
    const due = deps.database.db
      .select({ tenantId: t.tenantId, key: t.key })
      .from(t)
      .where(lte(t.expiresAt, deps.clock.now()))
      .limit(batch);
    const gone = await deps.database.db.delete(t).where(sql`(${t.tenantId}, ${t.key}) in ${due}`).returning({ key: t.key });
    deleted += gone.length;
    if (gone.length < batch) return deleted;
  }
}
