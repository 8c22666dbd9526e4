// Step 1 of an attempt (payment-attempt.ts): hold the pending transaction for one attempt with a lease, so that no
// database lock is held while the processor answers and still only one attempt can ever charge. A payable
// transaction is claimed by one statement (claim-statement.ts, decision 555), shared by the claims of its account
// that arrive together (claim-group.ts, decision 620); one that is not is locked and looked at, to say why (and to
// reject it when it has expired).
import type { AppContext } from '../../platform/context.ts';
import { hasUndecidedSession } from '../../platform/processors/account-processors.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { lockTransaction, type TransactionRow } from './repository.ts';
import { claimGrouped } from './claim-group.ts';
import type { TransactionStatus } from './state-machine.ts';
import { expiryRejection, recordRejection } from './transaction-result.ts';

/** A pending transaction whose expiry has passed, with no live attempt, is expired now. */
export function isExpired(
  row: { expires_at: Date | null; attempt_lease_until: Date | null },
  now: Date,
): boolean {
  if (row.expires_at === null || row.expires_at.getTime() > now.getTime()) return false;
  return row.attempt_lease_until === null || row.attempt_lease_until.getTime() <= now.getTime();
}

export type Claim =
  | { readonly kind: 'final'; readonly status: TransactionStatus }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'expired' }
  | {
      readonly kind: 'claimed';
      readonly accountId: string;
      readonly amountMinor: bigint;
      readonly currency: string;
      readonly description: string;
      /** The row as claimed: its keys and urlnotify make the success's callback (success-record.ts). */
      readonly row: TransactionRow;
    };

/** Who claims: the transaction, its account (whose clock says "now"), the attempt and how long it holds it. */
export interface ClaimRequest {
  readonly transactionId: string;
  readonly accountId: string;
  readonly attemptId: string;
  readonly leaseMs: number;
}

/** Holds the pending transaction for this attempt for `leaseMs`, or says why it cannot. */
export async function claimAttempt(ctx: AppContext, request: ClaimRequest): Promise<Claim> {
  const row = await claimGrouped(ctx, request.accountId, {
    transactionId: request.transactionId,
    attemptId: request.attemptId,
    leaseMs: request.leaseMs,
  });
  // Not payable now: the row under its lock says why.
  return row !== undefined ? claimed(row) : claimLocked(ctx, request);
}

function claimed(row: TransactionRow): Claim {
  return {
    kind: 'claimed',
    accountId: row.account_id,
    amountMinor: BigInt(row.amount_minor),
    currency: row.currency,
    description: row.subject,
    row,
  };
}

/** The row under its lock: why it cannot be claimed (an expired one is rejected now), or claimed after all. */
async function claimLocked(ctx: AppContext, request: ClaimRequest): Promise<Claim> {
  return inTransaction(ctx.db, async (tx) => {
    const row = await lockTransaction(tx, request.transactionId);
    if (row === undefined) throw new Error('attempt on a transaction that does not exist');
    if (row.status !== 'pending') return { kind: 'final', status: row.status } as const;
    const now = await ctx.accountClock.now(row.account_id, tx);
    const live =
      row.attempt_lease_until !== null && row.attempt_lease_until.getTime() > now.getTime();
    if (live || (ctx.config.mode === 'production' && (await hasUndecidedSession(tx, row.id))))
      return { kind: 'in_progress' } as const;
    if (isExpired(row, now)) {
      await recordRejection(tx, row, expiryRejection, now);
      return { kind: 'expired' } as const;
    }
    await tx
      .updateTable('transactions')
      .set({
        attempt_id: request.attemptId,
        attempt_lease_until: new Date(now.getTime() + request.leaseMs),
        updated_at: now,
      })
      .where('id', '=', row.id)
      .execute();
    return claimed(row);
  });
}

/** Gives the transaction back when the processor call failed before deciding anything. */
export async function releaseClaim(
  ctx: AppContext,
  transactionId: string,
  attemptId: string,
): Promise<void> {
  await ctx.db
    .updateTable('transactions')
    .set({ attempt_id: null, attempt_lease_until: null })
    .where('id', '=', transactionId)
    .where('attempt_id', '=', attemptId)
    .execute();
}
