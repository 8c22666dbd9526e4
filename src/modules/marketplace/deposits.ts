// Deposits of the clients' settled shares to their bank accounts: `liquidate` -> `pending for deposit` when the
// money leaves the client's payable for the bank, -> `paid` once the bank's deposit window has passed.
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../platform/ledger/ledger.ts';
import { shareTransitions, type ShareStatus } from './types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { limits } from '../../limits/index.ts';

function assertMove(from: ShareStatus, to: ShareStatus): void {
  if (!(shareTransitions[from] as readonly ShareStatus[]).includes(to))
    throw new Error(`share cannot move from ${from} to ${to}`);
}

async function advanceOneShare(ctx: AppContext, accountId: string | undefined): Promise<boolean> {
  return inTransaction(ctx.db, async (tx) => {
    const share = await claimDueShare(ctx, tx, accountId);
    if (share === undefined) return false;
    // Account time, like the settlement that liquidated the share: service time would date the deposit before it.
    const at = await ctx.accountClock.now(share.account_id, tx);
    if (share.status === 'liquidate') {
      await startDeposit(ctx, tx, share, at);
    } else {
      assertMove('pending for deposit', 'paid');
      await tx
        .updateTable('ma_payment_shares')
        .where('transaction_id', '=', share.transaction_id)
        .where('client_id', '=', share.client_id)
        .set({ status: 'paid', paid_at: at, deposit_due_at: null })
        .execute();
    }
    return true;
  });
}

/** The share whose deposit step is due earliest on its account's clock, locked (others' locked ones skipped). */
async function claimDueShare(ctx: AppContext, tx: Tx, accountId: string | undefined) {
  let q = tx
    .selectFrom('ma_payment_shares')
    .select([
      'transaction_id',
      'client_id',
      'account_id',
      'currency',
      'amount_minor',
      'refunded_minor',
      'status',
      'deposit_due_at',
    ])
    .where('status', 'in', ['liquidate', 'pending for deposit'])
    .where(
      'deposit_due_at',
      '<=',
      ctx.accountClock.nowSql(sql.ref('ma_payment_shares.account_id')),
    );
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return q.orderBy('deposit_due_at').limit(1).forUpdate().skipLocked().executeTakeFirst();
}

type DueShare = NonNullable<Awaited<ReturnType<typeof claimDueShare>>>;

/** `liquidate` -> `pending for deposit`: the share (less what refunds took back) leaves the client's payable. */
async function startDeposit(ctx: AppContext, tx: Tx, share: DueShare, at: Date): Promise<void> {
  assertMove('liquidate', 'pending for deposit');
  // What refunds took back of a liquidated share already left its payable (decision 116).
  const depositMinor = share.amount_minor - share.refunded_minor;
  if (depositMinor > 0n) {
    await ctx.ledger.post(tx, {
      kind: journalKinds.marketplaceClientDeposit,
      reference: share.transaction_id,
      at,
      postings: [
        {
          owner: share.client_id,
          code: ledgerCodes.clientPayable,
          currency: share.currency,
          amountMinor: -depositMinor,
        },
        {
          owner: SYSTEM_OWNER,
          code: ledgerCodes.bankClearing,
          currency: share.currency,
          amountMinor: depositMinor,
        },
      ],
    });
  }
  await tx
    .updateTable('ma_payment_shares')
    .where('transaction_id', '=', share.transaction_id)
    .where('client_id', '=', share.client_id)
    .set({
      status: 'pending for deposit',
      deposit_started_at: at,
      deposit_due_at: new Date(share.deposit_due_at!.getTime() + limits.clientDepositConfirmMs),
    })
    .execute();
}

export async function runClientDeposits(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  let processed = 0;
  while (processed < scope.limit && (await advanceOneShare(ctx, scope.accountId))) processed++;
  return processed;
}
