// A refund the processor refused gives its collected money back where it came from (decision 695): the fee's part to
// the service, the merchant's part taken from the sale itself back to where the sale's money is now: its pending
// settlement while it has not settled (the settlement then moves it), the hold that keeps it (escrow: released only
// by POST /api/escrow), else the wallet. The clients' parts of a split sale are the merchant's again (decision 116):
// to the sale's hold when one keeps it (decision 1040), else to the wallet. What came from the wallet goes back to
// the wallet, and pays the chargeback debt first (decision 905).
// Before, all of it went to the wallet, so a held sale's money could be paid out without its release.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import {
  journalKinds,
  ledgerCodes,
  SYSTEM_OWNER,
  type LedgerKey,
  type PostedJournal,
} from '../../platform/ledger/ledger.ts';
import { extensionOf, heldFundsOf } from '../transactions/extension.ts';
import { lockTransaction, type TransactionRow } from '../transactions/repository.ts';
import { assertTransition as assertTransactionMove } from '../transactions/state-machine.ts';
import { collectDisputeDebt, lockOwedDebt } from '../wallet/debt-collection.ts';
import { appendWalletMovement } from '../wallet/movements.ts';
import type { NullificationRow } from './repository.ts';

/**
 * Where the parts a refund took from the sale go back now, how much, and what records it there; null for the wallet.
 * The clients' or beneficiaries' parts (`from_split_minor`) go with the merchant's only to a hold (decision 1040).
 */
async function saleDestination(
  ctx: AppContext,
  tx: Tx,
  payment: TransactionRow,
  row: NullificationRow,
): Promise<{
  readonly key: LedgerKey;
  readonly amountMinor: bigint;
  readonly record: () => Promise<void>;
} | null> {
  const fromSaleMinor = BigInt(row.from_pending_minor);
  if (payment.settled_at === null && fromSaleMinor === 0n) return null;
  if (payment.settled_at === null)
    return {
      key: {
        owner: payment.account_id,
        code: ledgerCodes.pendingSettlement,
        currency: payment.currency,
      },
      amountMinor: fromSaleMinor,
      // The settlement moves the sale's net less what refunds took from it (decision 560's refunded_pending).
      record: async () => {
        await tx
          .updateTable('transactions')
          .set((eb) => ({
            refunded_pending_minor: eb('refunded_pending_minor', '-', fromSaleMinor),
          }))
          .where('id', '=', payment.id)
          .execute();
      },
    };
  const splitMinor = BigInt(row.from_split_minor);
  if (fromSaleMinor + splitMinor === 0n) return null;
  const held = await heldFundsOf(ctx, tx, payment);
  if (held === null) return null;
  // Decision 890: a refund taken from the pending settlement, then refused after the sale settled into its hold,
  // gives the hold money its settlement never counted: the hold counts it as settled, as the settlement would have.
  // The split parts too: the settlement gave them to the clients, and they are the merchant's now (decision 1040).
  const [fromPending] = await ctx.ledger.postedTo(tx, {
    kind: journalKinds.refundCollected,
    owner: payment.account_id,
    code: ledgerCodes.pendingSettlement,
    references: [row.id],
  });
  const unsettledMinor = fromPending === undefined ? 0n : -fromPending.amountMinor;
  return {
    key: held.source.key,
    amountMinor: fromSaleMinor + splitMinor,
    record: () =>
      held.hold.returned(
        ctx,
        tx,
        payment,
        fromSaleMinor + splitMinor,
        (unsettledMinor < fromSaleMinor ? unsettledMinor : fromSaleMinor) + splitMinor,
      ),
  };
}

/** The extension's own report (an event's paymentData) stops counting the refund, before any ledger row (790). */
async function tellExtension(
  ctx: AppContext,
  tx: Tx,
  payment: TransactionRow,
  refused: { readonly amountMinor: bigint; readonly feeBackMinor: bigint },
): Promise<void> {
  await extensionOf(ctx, payment)?.refused?.(ctx, tx, payment, refused);
}

/** What went back to the wallet: its movement, then the chargeback debt it pays (decision 905). */
async function walletReturned(
  ctx: AppContext,
  tx: Tx,
  r: {
    readonly row: NullificationRow;
    readonly payment: TransactionRow;
    readonly journal: PostedJournal;
    readonly at: Date;
  },
  toWalletMinor: bigint,
  owedMinor: bigint,
): Promise<void> {
  const { row, payment, journal, at } = r;
  await appendWalletMovement(tx, {
    accountId: row.account_id,
    currency: row.currency,
    order: payment.order,
    subject: row.subject,
    kind: 'refund_returned',
    reference: row.id,
    originLiquidation: payment.id,
    journal,
    at,
  });
  await collectDisputeDebt(ctx, tx, {
    accountId: row.account_id,
    currency: row.currency,
    owedMinor,
    creditedMinor: toWalletMinor,
    reference: row.id,
    originLiquidation: payment.id,
    order: payment.order,
    at,
  });
}

export async function giveBack(
  ctx: AppContext,
  tx: Tx,
  row: NullificationRow,
  at: Date,
): Promise<void> {
  // The transaction's row before the ledger (decision 060), as the refund's command takes them.
  const payment = await lockTransaction(tx, row.transaction_id);
  if (payment === undefined) throw new Error(`nullification ${row.id} names no transaction`);
  const amountMinor = BigInt(row.amount_minor);
  const feeBack = BigInt(row.fee_back_minor);
  const merchantMinor = amountMinor - feeBack;
  await tellExtension(ctx, tx, payment, { amountMinor, feeBackMinor: feeBack });
  const sale = await saleDestination(ctx, tx, payment, row);
  const toSaleMinor = sale === null ? 0n : sale.amountMinor;
  const toWalletMinor = merchantMinor - toSaleMinor;
  const wallet = {
    owner: row.account_id,
    code: ledgerCodes.walletAvailable,
    currency: row.currency,
  };
  // What goes back to the wallet pays the chargeback debt first (decision 905): locked before the journal, as
  // `dispute_debt` sorts first in the ledger's lock order.
  const owedMinor =
    toWalletMinor > 0n ? await lockOwedDebt(ctx, tx, row.account_id, row.currency) : 0n;
  const journal = await ctx.ledger.post(tx, {
    kind: journalKinds.refundReturned,
    reference: row.id,
    at,
    postings: [
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.refundClearing,
        currency: row.currency,
        amountMinor: -amountMinor,
      },
      ...(sale === null ? [] : [{ ...sale.key, amountMinor: sale.amountMinor }]),
      ...(toWalletMinor > 0n ? [{ ...wallet, amountMinor: toWalletMinor }] : []),
      ...(feeBack > 0n
        ? [
            {
              owner: SYSTEM_OWNER,
              code: ledgerCodes.feeRefunds,
              currency: row.currency,
              amountMinor: feeBack,
            },
          ]
        : []),
    ],
  });
  if (sale !== null) await sale.record();
  if (toWalletMinor > 0n)
    await walletReturned(ctx, tx, { row, payment, journal, at }, toWalletMinor, owedMinor);
  const refundedMinor = BigInt(payment.refunded_minor) - amountMinor;
  const status = refundedMinor === 0n ? 'success' : 'refunded partial';
  if (status !== payment.status) assertTransactionMove(payment.status, status);
  await tx
    .updateTable('transactions')
    .set({ status, refunded_minor: refundedMinor, updated_at: at })
    .where('id', '=', payment.id)
    .execute();
}
