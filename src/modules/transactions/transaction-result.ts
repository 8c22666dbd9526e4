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
function resultCallback(
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
function availabilityDate(ctx: AppContext, paidAt: Date): { date: string; dueAt: Date } {
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

export interface Approval {
  readonly paidPayment: number;
  readonly media: string;
  readonly authorizationCode: string;
  readonly cardBrand: string | null;
  readonly cardLast4: string | null;
  readonly cardToken: string | null;
  readonly cardType: string | null;
  readonly installments: number;
  readonly payerIdentifier: string | null;
  readonly payerBank: string | null;
  readonly payerIp: string | null;
}

/**
 * The row's own record of a success, answered as it is now (the result page shows it without reading it again),
 * and its callback into the outbox by the same statement when there is one (decision 600: a data-modifying CTE runs
 * whether or not the query reads it).
 */
async function markPaid(
  tx: Tx,
  row: TransactionRow,
  approval: Approval,
  paid: { readonly feeMinor: bigint; readonly depositDate: string; readonly settleDueAt: Date },
  at: Date,
  callback: CallbackInput | null,
): Promise<TransactionRow> {
  const values = {
    status: 'success' as const,
    updated_at: at,
    ended_at: at,
    attempt_id: null,
    attempt_lease_until: null,
    charge_key: row.attempt_id,
    paid_payment: approval.paidPayment,
    media: approval.media,
    authorization_code: approval.authorizationCode,
    card_brand: approval.cardBrand,
    card_last4: approval.cardLast4,
    card_token: approval.cardToken,
    card_type: approval.cardType,
    installments: approval.installments,
    payer_identifier: approval.payerIdentifier,
    payer_bank: approval.payerBank,
    payer_ip: approval.payerIp,
    gateway_message: 'successful transaction',
    fee_minor: paid.feeMinor,
    deposit_date: paid.depositDate,
    settle_due_at: paid.settleDueAt,
  };
  if (callback === null)
    return tx
      .updateTable('transactions')
      .set(values)
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  const outbox = callbackRow(callback);
  return tx
    .with('paid', (db) =>
      db.updateTable('transactions').set(values).where('id', '=', row.id).returningAll(),
    )
    .with('callback', (db) => db.insertInto('notifications').values(outbox).returning('id'))
    .selectFrom('paid')
    .selectAll()
    .executeTakeFirstOrThrow();
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
 * recorded; answers the row as paid.
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
  const { paid, feeMinor, journals } = await markSuccess(ctx, tx, row, approval, at, rule);
  await ctx.ledger.postAll(tx, journals);
  // How the net will divide is fixed now, with the money; settlement moves it (settlement-allocation.ts). After the
  // ledger: an extension's part locks in the ledger's order, the pending settlement first (events/sales.ts).
  await extensionOf(ctx, row)?.recordSuccess(ctx, tx, row, {
    grossMinor: BigInt(row.amount_minor),
    feeMinor,
    at,
  });
  return paid;
}

/**
 * The row's part of a success, before its money: the row paid and its callback (one statement), and the journals
 * its caller posts, alone (recordSuccess) or with its group's (success-group-commit.ts, decision 615).
 */
export async function markSuccess(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  approval: Approval,
  at: Date,
  feeRule: FeeRule,
): Promise<{ paid: TransactionRow; feeMinor: bigint; journals: JournalInput[] }> {
  assertTransition(row.status, 'success');
  const feeMinor = computeFeeMinor(BigInt(row.amount_minor), feeRule);
  const { date, dueAt } = availabilityDate(ctx, at);
  // The callback before the money, in the row's own statement (decisions 556, 600): the merchant's pending
  // settlement, which every payment of the merchant locks, is then held for the journals' one statement, the
  // extension's part and the commit only.
  const paid = await markPaid(
    tx,
    row,
    approval,
    { feeMinor, depositDate: date, settleDueAt: dueAt },
    at,
    resultCallback(row, 'success', at, approval),
  );
  return { paid, feeMinor, journals: successJournals(row, feeMinor, at) };
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
