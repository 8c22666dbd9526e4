// What registering a refund writes besides moving its money (nullify.ts): the fee's part returned into refund
// clearing, the nullification's row in its first state, and the payment marked refunded.
import type { AppContext } from '../../platform/context.ts';
import { paidThroughFintoc } from '../../platform/processors/fintoc-selection.ts';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import {
  journalKinds,
  ledgerCodes,
  SYSTEM_OWNER,
  type LedgerKey,
} from '../../platform/ledger/ledger.ts';
import type { TransactionRow } from '../transactions/repository.ts';
import { assertTransition as assertTransactionMove } from '../transactions/state-machine.ts';
import { assertTransition, type NullificationStatus } from './states.ts';

/** How the payment was made, as the nullification names it: `webpay` / `VN`, and whether it was a card (the processor takes it back). */
async function paymentOf(tx: DbOrTx, row: TransactionRow) {
  const method =
    row.paid_payment === null
      ? undefined
      : await tx
          .selectFrom('payment_methods')
          .select(['name', 'kind'])
          .where('currency', '=', row.currency)
          .where('payment', '=', row.paid_payment)
          .executeTakeFirst();
  const name = method?.name ?? row.media ?? '';
  return {
    gateway: (name.split(' ')[0] ?? '').toLowerCase(),
    paymentType: row.card_type ?? '',
    card: method?.kind === 'card',
  };
}

/** The fee's part of the refund (decision 110) back from fee refunds into refund clearing. */
export async function returnFee(
  ctx: AppContext,
  tx: Tx,
  {
    reference,
    at,
    feeBackMinor,
    clearing,
  }: { reference: string; at: Date; feeBackMinor: bigint; clearing: LedgerKey },
): Promise<void> {
  await ctx.ledger.post(tx, {
    kind: journalKinds.refundFeeReturned,
    reference,
    at,
    postings: [
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.feeRefunds,
        currency: clearing.currency,
        amountMinor: -feeBackMinor,
      },
      { ...clearing, amountMinor: feeBackMinor },
    ],
  });
}

/** The nullification in its first state: collected or awaiting funds, then by the payment's channel (decision 112). */
export async function insertNullification(
  tx: Tx,
  {
    id,
    accountId,
    row,
    subject,
    amountMinor,
    collected,
    parts: { feeBack, fromPending, fromWallet, splitMinor },
    at,
    dispatchAt,
    externalCode,
  }: {
    id: string;
    accountId: string;
    row: TransactionRow;
    subject: string;
    amountMinor: bigint;
    collected: boolean;
    parts: { feeBack: bigint; fromPending: bigint; fromWallet: bigint; splitMinor: bigint };
    at: Date;
    /** When a collected processor refund is first due for dispatch: the service's now (its lease's clock, decision 785). */
    dispatchAt: Date;
    /**
     * A refund made at the acquirer (decision 1025): its code (`external:<reference>`); collected it is `complete`
     * whatever the channel, never due for dispatch, and its recorder moves it to `reverse_completed` at once.
     */
    externalCode?: string;
  },
) {
  const payment = await paymentOf(tx, row);
  // A card refund, or one of a sale paid through Fintoc, goes back through the processor; any other payment through
  // a bank payout (decision 112).
  const channel = payment.card || (await paidThroughFintoc(tx, row.id)) ? 'processor' : 'bank';
  const status: NullificationStatus = !collected
    ? 'awaiting_funds'
    : channel === 'processor' || externalCode !== undefined
      ? 'complete'
      : 'waiting_bank_details';
  assertTransition('pending', status);
  const inserted = await tx
    .insertInto('nullifications')
    .values({
      id,
      account_id: accountId,
      transaction_id: row.id,
      amount_minor: amountMinor,
      currency: row.currency,
      subject,
      type: collected ? 'total' : 'partial',
      status,
      fee_back_minor: feeBack,
      from_pending_minor: fromPending,
      from_wallet_minor: fromWallet,
      from_split_minor: splitMinor,
      gateway: payment.gateway,
      payment_type: payment.paymentType,
      refund_code: externalCode ?? null,
      gateway_message: null,
      channel,
      dispatch_due_at: status === 'complete' && externalCode === undefined ? dispatchAt : null,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { inserted, status };
}

/** The payment `refunded` or `refunded partial`, with what its refunds took and the nullification's status. */
export async function markRefunded(
  tx: Tx,
  row: TransactionRow,
  {
    amountMinor,
    pendingMinor,
    status,
    at,
  }: { amountMinor: bigint; pendingMinor: bigint; status: NullificationStatus; at: Date },
): Promise<void> {
  const refundedMinor = BigInt(row.refunded_minor) + amountMinor;
  const paymentStatus =
    refundedMinor === BigInt(row.amount_minor) ? 'refunded' : 'refunded partial';
  if (paymentStatus !== row.status) assertTransactionMove(row.status, paymentStatus);
  await tx
    .updateTable('transactions')
    .set({
      status: paymentStatus,
      refunded_minor: refundedMinor,
      refunded_pending_minor: BigInt(row.refunded_pending_minor) + pendingMinor,
      nullify_status: status,
      updated_at: at,
    })
    .where('id', '=', row.id)
    .execute();
}
