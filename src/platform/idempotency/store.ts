// Stored Idempotency-Key answers (supplement §4.5, Stripe semantics): one row per account and key, claimed,
// run and answered inside the command's own transaction (decision 071), so the key commits with the effect.
import { sql } from 'kysely';
import type { Db, DbOrTx, Timestamp, Tx } from '../db/types.ts';
import { limits } from '../../limits/index.ts';

interface IdempotencyKeyTable {
  account_id: string;
  idem_key: string;
  method: string;
  path: string;
  request_hash: string;
  /**
   * `done` once the answer is stored. `in_flight` is only ever seen committed for a command with an after-commit
   * step (its effect committed, its answer not yet stored; `body` then holds the committed value), or for a row
   * left by a release before decision 071.
   */
  state: 'in_flight' | 'done';
  status_code: number | null;
  content_type: string | null;
  body: string | null;
  /** An in-flight claim older than this belongs to a request that died; another may take it over. */
  locked_until: Timestamp;
  expires_at: Timestamp;
  created_at: Timestamp;
}

declare module '../db/types.ts' {
  interface Database {
    idempotency_keys: IdempotencyKeyTable;
  }
}

export interface ClaimInput {
  readonly accountId: string;
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly requestHash: string;
  readonly now: Date;
  /** The claim's lease (config IDEMPOTENCY_LEASE_MS). */
  readonly leaseMs: number;
}

export type Claim =
  | { readonly kind: 'proceed' }
  | { readonly kind: 'in_flight' }
  | { readonly kind: 'mismatch' }
  | {
      readonly kind: 'replay';
      readonly statusCode: number;
      readonly contentType: string;
      readonly body: string;
    }
  /** The effect committed, the after-commit step died: run that step again, never the effect. */
  | { readonly kind: 'resume'; readonly committedJson: string };

/**
 * Claims the key inside the caller's transaction. On PostgreSQL a second transaction inserting the same key waits
 * on the unique index until the first commits (then it reads the stored answer) or rolls back (then it claims).
 */
export async function claimKey(db: Tx, input: ClaimInput): Promise<Claim> {
  const lockedUntil = new Date(input.now.getTime() + input.leaseMs);
  for (let attempt = 0; attempt < limits.idempotencyClaimAttemptsMax; attempt++) {
    await db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', input.accountId)
      .where('idem_key', '=', input.key)
      .where('expires_at', '<=', input.now)
      .execute();
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({
        account_id: input.accountId,
        idem_key: input.key,
        method: input.method,
        path: input.path,
        request_hash: input.requestHash,
        state: 'in_flight',
        status_code: null,
        content_type: null,
        body: null,
        locked_until: lockedUntil,
        expires_at: new Date(input.now.getTime() + limits.idempotencyTtlMs),
        created_at: input.now,
      })
      .onConflict((oc) => oc.columns(['account_id', 'idem_key']).doNothing())
      .returning('idem_key')
      .executeTakeFirst();
    if (inserted !== undefined) return { kind: 'proceed' };
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', input.accountId)
      .where('idem_key', '=', input.key)
      .executeTakeFirst();
    // Expired and deleted by someone else between the two statements: claim again.
    if (row === undefined) continue;
    if (
      row.method !== input.method ||
      row.path !== input.path ||
      row.request_hash !== input.requestHash
    )
      return { kind: 'mismatch' };
    if (row.state === 'done' && row.status_code !== null && row.body !== null) {
      return {
        kind: 'replay',
        statusCode: row.status_code,
        contentType: row.content_type ?? 'application/json; charset=utf-8',
        body: row.body,
      };
    }
    if (row.locked_until > input.now) return { kind: 'in_flight' };
    // The first request died mid-flight: take its claim over, unless another retry just did.
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ locked_until: lockedUntil })
      .where('account_id', '=', input.accountId)
      .where('idem_key', '=', input.key)
      .where('state', '=', 'in_flight')
      .where('locked_until', '=', row.locked_until)
      .returning('idem_key')
      .executeTakeFirst();
    if (taken === undefined) return { kind: 'in_flight' };
    return row.body !== null ? { kind: 'resume', committedJson: row.body } : { kind: 'proceed' };
  }
  return { kind: 'in_flight' };
}

export interface StoredAnswer {
  readonly statusCode: number;
  readonly contentType: string;
  readonly body: string;
}

/** Stores the bytes sent, in the same transaction as the claim (or, after an after-commit step, its own). */
export async function completeKey(
  db: DbOrTx,
  accountId: string,
  key: string,
  answer: StoredAnswer,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      status_code: answer.statusCode,
      content_type: answer.contentType,
      body: answer.body,
    })
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .where('state', '=', 'in_flight')
    .execute();
}

/** The effect commits with the key still in flight and its committed value kept, for an after-commit step. */
export async function keepCommitted(
  tx: Tx,
  accountId: string,
  key: string,
  committedJson: string,
): Promise<void> {
  await tx
    .updateTable('idempotency_keys')
    .set({ body: committedJson })
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .where('state', '=', 'in_flight')
    .execute();
}

export async function purgeExpiredKeys(
  db: Db,
  now: Date,
  accountId: string | undefined,
  limit: number,
): Promise<number> {
  const scope = accountId === undefined ? sql`TRUE` : sql`account_id = ${accountId}`;
  const result = await sql`
    DELETE FROM idempotency_keys WHERE (account_id, idem_key) IN (
      SELECT account_id, idem_key FROM idempotency_keys WHERE expires_at <= ${now} AND ${scope} LIMIT ${limit})`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0n);
}
