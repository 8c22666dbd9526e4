// Records a transaction's outcome in the caller's database transaction: the state change, the money (on success)
// and the urlnotify callback (outbox), together or not at all (supplement §4.2, §5.1).
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import {
  journalKinds,
  ledgerCodes,
  SYSTEM_OWNER,
  type JournalInput,
} from '../../platform/ledger/ledger.ts';
import {
  callbackRow,
  enqueueCallback,
  type CallbackInput,
} from '../../platform/notifications/enqueue.ts';
import { markPaid, type Approval } from './success-statement.ts';
import { formatDate, parseLocal } from '../../platform/time/time-format.ts';
import { extensionOf } from './extension.ts';
import { computeFeeMinor, feeRuleFor, type FeeRule } from './fees.ts';
import type { TransactionRow } from './repository.ts';
import { assertTransition, notifyStatus, type TransactionStatus } from './state-machine.ts';
import type { RejectionReason } from './types.ts';

const transactionResultEvent = 'transaction.result';

/** What a success adds to the callback (issue 15): the acquirer's authorization and, for cards, the card's facts. */
interface PaidFacts {
  readonly authorizationCode: string;
  readonly cardLast4: string | null;
  readonly cardType: string | null;
  readonly installments: number;
}

/**
 * reference §1.4: every value is a string; status is success | failed. A success also carries
 * `authorization_code` and, paid by card, `last_4_digits`, `card_type` and `installments` (as GET shows them).
 */
function resultPayload(
  row: TransactionRow,
  status: TransactionStatus,
  paid: PaidFacts | null = null,
) {
  const base = {
    transaction_id: String(row.number),
    payment_key: row.payment_key,
    transaction_key: row.transaction_key,
    verification_key: row.verification_key,
    order: row.order,
    status: notifyStatus(status),
  };
  if (paid === null) return base;
  const card =
    paid.cardLast4 === null
      ? {}
      : {
          last_4_digits: paid.cardLast4,
          card_type: paid.cardType ?? '',
          installments: String(paid.installments),
        };
  return { ...base, authorization_code: paid.authorizationCode, ...card };
}

/** The urlnotify callback of an outcome, or null when the transaction names no URL. */
export function resultCallback(
  row: TransactionRow,
  status: TransactionStatus,
  at: Date,
  paid: PaidFacts | null = null,
): CallbackInput | null {
  if (row.urlnotify === null) return null;
  return {
    accountId: row.account_id,
    url: row.urlnotify,
    eventType: transactionResultEvent,
    payload: resultPayload(row, status, paid),
    at,
  };
}

/** The local date the net becomes available: payment date plus SETTLEMENT_DELAY_DAYS (supplement §4.3). */
export function availabilityDate(ctx: AppContext, paidAt: Date): { date: string; dueAt: Date } {
  const [y, m, d] = formatDate(paidAt, ctx.config.timeZone).split('-').map(Number) as [
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(y, m - 1, d + ctx.config.settlementDelayDays))
    .toISOString()
    .slice(0, 10);
  const dueAt = parseLocal(date, ctx.config.timeZone);
  if (dueAt === null) throw new Error(`availability date ${date} does not parse`);
  return { date, dueAt };
}

/** The capture (gross into the merchant's pending settlement) and, when there is one, the fee out of it. */
function successJournals(row: TransactionRow, feeMinor: bigint, at: Date): JournalInput[] {
  const { currency } = row;
  const gross = BigInt(row.amount_minor);
  const capture: JournalInput = {
    kind: journalKinds.transactionCapture,
    reference: row.id,
    at,
    postings: [
      { owner: SYSTEM_OWNER, code: ledgerCodes.processorClearing, currency, amountMinor: -gross },
      { owner: row.account_id, code: ledgerCodes.pendingSettlement, currency, amountMinor: gross },
    ],
  };
  if (feeMinor === 0n) return [capture];
  const fee: JournalInput = {
    kind: journalKinds.transactionFee,
    reference: row.id,
    at,
    postings: [
      {
        owner: row.account_id,
        code: ledgerCodes.pendingSettlement,
        currency,
        amountMinor: -feeMinor,
      },
      { owner: SYSTEM_OWNER, code: ledgerCodes.serviceFees, currency, amountMinor: feeMinor },
    ],
  };
  return [capture, fee];
}

/**
 * pending -> success: gross into the merchant's pending settlement, the fee to the service, and the split of the net
 * recorded; answers the row as paid. The checkout's approved payments without an extension are recorded by one
 * statement of their own instead (success-record.ts, decision 730); this serves every other success.
 */
export async function recordSuccess(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  approval: Approval,
  at: Date,
  /** The account's fee rule for the method paid when the caller read it with the row (outcome-statement.ts). */
  feeRule?: FeeRule,
): Promise<TransactionRow> {
  const rule = feeRule ?? (await feeRuleFor(tx, row.account_id, approval.paidPayment));
  assertTransition(row.status, 'success');
  const feeMinor = computeFeeMinor(BigInt(row.amount_minor), rule);
  const { date, dueAt } = availabilityDate(ctx, at);
  const callback = resultCallback(row, 'success', at, approval);
  // The callback before the money, in the row's own statement (decisions 556, 600): the merchant's pending
  // settlement, which every payment of the merchant locks, is then held for the journals' one statement, the
  // extension's part and the commit only.
  const paid = await markPaid(
    tx,
    { ...approval, id: row.id, feeMinor, depositDate: date, settleDueAt: dueAt },
    callback === null ? null : callbackRow(callback),
    at,
  );
  await ctx.ledger.postAll(tx, successJournals(row, feeMinor, at));
  // How the net will divide is fixed now, with the money; settlement moves it (settlement-allocation.ts). After the
  // ledger: an extension's part locks in the ledger's order, the pending settlement first (events/sales.ts).
  await extensionOf(ctx, row)?.recordSuccess(ctx, tx, row, {
    grossMinor: BigInt(row.amount_minor),
    feeMinor,
    at,
  });
  return paid;
}

export interface Rejection {
  readonly reason: RejectionReason;
  readonly gatewayMessage: string;
  readonly paidPayment: number | null;
  readonly media: string | null;
  readonly cardBrand: string | null;
  readonly cardLast4: string | null;
  readonly payerIp: string | null;
}

/** pending -> rejected: a declined attempt or an expiry. No money moved, so none moves back. */
export async function recordRejection(
  tx: Tx,
  row: TransactionRow,
  rejection: Rejection,
  at: Date,
): Promise<void> {
  assertTransition(row.status, 'rejected');
  await tx
    .updateTable('transactions')
    .set({
      status: 'rejected',
      updated_at: at,
      attempt_id: null,
      attempt_lease_until: null,
      rejection_reason: rejection.reason,
      gateway_message: rejection.gatewayMessage,
      ...(rejection.paidPayment !== null
        ? { ended_at: at, paid_payment: rejection.paidPayment, media: rejection.media }
        : {}),
      card_brand: rejection.cardBrand,
      card_last4: rejection.cardLast4,
      payer_ip: rejection.payerIp,
    })
    .where('id', '=', row.id)
    .execute();
  const callback = resultCallback(row, 'rejected', at);
  if (callback !== null) await enqueueCallback(tx, callback);
}

export const expiryRejection: Rejection = {
  reason: 'expired',
  gatewayMessage: 'expired transaction',
  paidPayment: null,
  media: null,
  cardBrand: null,
  cardLast4: null,
  payerIp: null,
};
