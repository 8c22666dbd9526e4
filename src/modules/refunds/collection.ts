// Refunds waiting for funds (`awaiting_funds`, reference: "deducted from your next settlement"): each run takes
// what the merchant's available wallet holds now toward each waiting refund, oldest first, and completes those
// fully collected, which refund-dispatch then gives back to the payer. Runs as due work right after settlement
// (modules/index.ts lists refunds after transactions), so a sandbox clock advance settles a sale and collects
// from it in one drain. Claims with FOR UPDATE SKIP LOCKED; a refund's row, then its sale's, before the wallet
// (decisions 060, 635).
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../platform/ledger/ledger.ts';
import { appendWalletMovement } from '../wallet/movements.ts';
import { moveNullification } from './transition.ts';
import { applyRefundAnswer } from './refund-answer.ts';
import { isExternalRefund } from './refund-external.ts';
import type { NullificationRow } from './repository.ts';
import type { Tx } from '../../platform/db/types.ts';
import { lockTransaction } from '../transactions/repository.ts';
import './types.ts';

/** Collects toward one waiting refund; true when it took money. */
async function collectOne(ctx: AppContext, id: string): Promise<boolean> {
  return inTransaction(ctx.db, async (tx) => {
    const row = await tx
      .selectFrom('nullifications')
      .selectAll()
      .where('id', '=', id)
      .where('status', '=', 'awaiting_funds')
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (row === undefined) return false;
    // The sale's row before the wallet, as a new refund of the sale takes them (decision 060): collecting updates the
    // sale (showOnTransaction) after the wallet's lock otherwise, a cycle with that refund (decision 635).
    const payment = await lockTransaction(tx, row.transaction_id);
    if (payment === undefined) throw new Error(`nullification ${row.id} names no transaction`);
    const owedMinor =
      BigInt(row.amount_minor) -
      BigInt(row.fee_back_minor) -
      BigInt(row.from_pending_minor) -
      BigInt(row.from_wallet_minor) -
      BigInt(row.from_split_minor);
    const wallet = {
      owner: row.account_id,
      code: ledgerCodes.walletAvailable,
      currency: row.currency,
    };
    const [availableMinor] = await ctx.ledger.hold(tx, [wallet]);
    const takeMinor = availableMinor! < owedMinor ? availableMinor! : owedMinor;
    if (takeMinor <= 0n) return false;
    const at = await ctx.accountClock.now(row.account_id, tx);
    const taken = await ctx.ledger.take(tx, {
      kind: journalKinds.refundCollected,
      reference: row.id,
      at,
      currency: row.currency,
      amountMinor: takeMinor,
      sources: [{ key: wallet }],
      to: { owner: SYSTEM_OWNER, code: ledgerCodes.refundClearing, currency: row.currency },
    });
    if (!taken.ok)
      throw new Error(`refund ${row.id}: the held wallet no longer covers ${takeMinor}`);
    await appendWalletMovement(tx, {
      accountId: row.account_id,
      currency: row.currency,
      order: payment.order,
      subject: row.subject,
      kind: 'refund',
      reference: row.id,
      originLiquidation: payment.id,
      journal: taken.journal,
      at,
    });
    await recordCollected(ctx, tx, row, { takeMinor, owedMinor }, at);
    return true;
  });
}

/**
 * What was collected, on the refund: fully collected, it completes (or waits for the payer's bank details); else
 * it keeps waiting with more taken.
 */
async function recordCollected(
  ctx: AppContext,
  tx: Tx,
  row: NullificationRow,
  { takeMinor, owedMinor }: { takeMinor: bigint; owedMinor: bigint },
  at: Date,
): Promise<void> {
  const fromWalletMinor = BigInt(row.from_wallet_minor) + takeMinor;
  if (takeMinor === owedMinor && isExternalRefund(row)) {
    // Made at the acquirer already (decision 1025): complete, then ended as given back; nothing is dispatched.
    const completed = await moveNullification(ctx, tx, row, 'complete', at, {
      from_wallet_minor: fromWalletMinor,
    });
    await applyRefundAnswer(ctx, tx, completed, { approved: true, refundCode: row.refund_code! });
  } else if (takeMinor === owedMinor && row.channel === 'bank')
    await moveNullification(ctx, tx, row, 'waiting_bank_details', at, {
      from_wallet_minor: fromWalletMinor,
    });
  else if (takeMinor === owedMinor)
    await moveNullification(ctx, tx, row, 'complete', at, {
      from_wallet_minor: fromWalletMinor,
      // Due now on the service clock, where its dispatch lease is dated (decision 785).
      dispatch_due_at: ctx.clock.now(),
    });
  else
    await tx
      .updateTable('nullifications')
      .set({ from_wallet_minor: fromWalletMinor, updated_at: at })
      .where('id', '=', row.id)
      .execute();
}

export async function runRefundCollection(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  let q = ctx.db.selectFrom('nullifications').select('id').where('status', '=', 'awaiting_funds');
  if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
  const waiting = await q.orderBy('seq').limit(scope.limit).execute();
  let collected = 0;
  for (const { id } of waiting) if (await collectOne(ctx, id)) collected++;
  return collected;
}
