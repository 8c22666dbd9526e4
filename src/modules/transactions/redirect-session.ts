// What the steps of a redirect payment (redirect-start.ts, redirect-finish.ts, redirect-abandon.ts,
// redirect-recovery.ts) share: the acquirer session row, the method it paid with, the acquirer's status read of a
// lost commit (decision 150), and the record of a decided session.
import type { Selectable } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import type {
  ChargeOutcome,
  PaymentProcessor,
  RedirectSale,
} from '../../platform/processors/processor.ts';
import {
  webpayPlusName,
  type ProcessorSessionTable,
} from '../../platform/processors/account-processors.ts';
import { recordOutcome, type AttemptOutcome } from './attempt-outcome.ts';
import { recordRefundedOutside } from './redirect-refund-outside.ts';
import { transactionLimits } from '../../limits/index.ts';
import { lockTransaction, type TransactionRow } from './repository.ts';

export type Session = Selectable<ProcessorSessionTable>;

export interface ReturnResult {
  /** null when the token names no payment of ours. */
  readonly transactionId: string | null;
  readonly outcome: AttemptOutcome;
}

/**
 * Webpay Plus's session by its token or attempt: the return page is Webpay's, and a token or order a payer sends
 * there that names another processor's session (a Fintoc session's id) is no payment of ours (decision 655).
 */
async function lockSession(
  tx: Tx,
  by: { token?: string; attemptId?: string },
): Promise<Session | undefined> {
  let q = tx.selectFrom('processor_sessions').selectAll().where('processor', '=', webpayPlusName);
  if (by.token !== undefined) q = q.where('token', '=', by.token);
  else if (by.attemptId !== undefined) q = q.where('attempt_id', '=', by.attemptId);
  else return undefined;
  return q.forUpdate().executeTakeFirst();
}

/**
 * The session (by token or attempt) and its transaction, both locked, or undefined when no session has the token;
 * `live` while the session still waits for the payer's return and its attempt holds the pending transaction.
 */
export async function lockLiveSession(
  tx: Tx,
  by: { token?: string; attemptId?: string },
): Promise<{ session: Session; row: TransactionRow; live: boolean } | undefined> {
  const session = await lockSession(tx, by);
  if (session === undefined) return undefined;
  const row = await lockTransaction(tx, session.transaction_id);
  if (row === undefined) throw new Error('session of a transaction that does not exist');
  const live =
    session.state === 'redirected' &&
    row.status === 'pending' &&
    row.attempt_id === session.attempt_id;
  return { session, row, live };
}

/** The payer left the acquirer's page, or came back too late: the session is over, nothing to commit. */
export async function abandonSession(tx: Tx, session: Session, now: Date): Promise<void> {
  await tx
    .updateTable('processor_sessions')
    .set({ state: 'abandoned', updated_at: now })
    .where('attempt_id', '=', session.attempt_id)
    .execute();
}

/**
 * Holds the session's transaction for its commit under way: the session `committing` as of `now` (a recheck of a
 * lost commit moves it forward), and the attempt's lease renewed.
 */
export async function holdForCommit(tx: Tx, session: Session, now: Date): Promise<void> {
  await tx
    .updateTable('processor_sessions')
    .set({ state: 'committing', updated_at: now })
    .where('attempt_id', '=', session.attempt_id)
    .execute();
  await tx
    .updateTable('transactions')
    .set({
      attempt_lease_until: new Date(now.getTime() + transactionLimits.acquirer.redirectLeaseMs),
    })
    .where('id', '=', session.transaction_id)
    .where('attempt_id', '=', session.attempt_id)
    .execute();
}

/** The method the attempt was for: the transaction's fixed one, else Webpay (payment 1). */
export async function methodOf(
  tx: Tx,
  session: Session,
  payment: number | null,
): Promise<{ payment: number; name: string }> {
  const code = payment === null || payment === 99 ? 1 : payment;
  const m = await tx
    .selectFrom('payment_methods')
    .innerJoin('transactions', 'transactions.currency', 'payment_methods.currency')
    .select('payment_methods.name')
    .where('transactions.id', '=', session.transaction_id)
    .where('payment_methods.payment', '=', code)
    .executeTakeFirst();
  return { payment: code, name: m?.name ?? 'Webpay' };
}

/** The sale the session's acquirer transaction was created for (its amount: the transaction's, fixed at creation). */
export function saleOf(session: Session, amountMinor: bigint | string | number): RedirectSale {
  return {
    attemptId: session.attempt_id,
    transactionId: session.transaction_id,
    amountMinor: BigInt(amountMinor),
  };
}

/**
 * decision 150: the acquirer's record decides; null while it cannot be read (ask again later). `read` says when:
 * `right_after_commit` (the payer's return, the commit's answer just lost) or `recheck` (the recovery due work, at
 * least `commitRecheckMs` after the commit was sent).
 */
export async function decidedByStatus(
  ctx: AppContext,
  processor: PaymentProcessor,
  token: string,
  sale: RedirectSale,
  read: 'right_after_commit' | 'recheck',
): Promise<ChargeOutcome | null> {
  try {
    const status = await processor.redirect!.status(token, sale);
    if (status.state === 'open' && read === 'right_after_commit') {
      // A commit still running at the acquirer reads as not committed yet (decision 1010): the recovery asks again
      // once the commit has surely ended, so a charge decided late is never declined.
      ctx.logger.warn(
        { attempt: sale.attemptId },
        'status of a lost commit shows nothing committed yet: kept committing for the recovery due work',
      );
      return null;
    }
    if (status.state === 'open') {
      // Nothing was committed, so nothing was charged: an uncommitted authorisation is reversed by Transbank.
      return {
        approved: false,
        payerMessage: 'Webpay no confirmó el pago; no se realizó ningún cobro.',
        gatewayMessage: 'Rechazo de transacción.',
        cardBrand: null,
        cardLast4: null,
      };
    }
    return status.outcome;
  } catch (error) {
    ctx.logger.warn(
      { err: error },
      'status of a lost commit unreadable: kept committing for the recovery due work',
    );
    return null;
  }
}

/** Records the decided attempt (money and callback in one commit), then closes its session. */
export async function recordSession(
  ctx: AppContext,
  session: Session,
  method: { payment: number; name: string },
  outcome: ChargeOutcome,
  payerIp: string | null,
): Promise<AttemptOutcome> {
  const result = await recordOutcome(
    ctx,
    {
      transactionId: session.transaction_id,
      accountId: session.account_id,
      attemptId: session.attempt_id,
      method,
      installments: 0,
      payerIdentifier: null,
      payerBank: null,
      payerIp,
    },
    outcome,
  );
  // Before the session is closed: a failure here leaves it `committing`, and the recovery records the part given back
  // again under the same reference, which records it once (decision 1042).
  if (outcome.approved && outcome.refundedOutside !== undefined)
    await recordRefundedOutside(ctx, session, outcome.refundedOutside);
  await ctx.db
    .updateTable('processor_sessions')
    .set({ state: outcome.approved ? 'approved' : 'declined', updated_at: ctx.clock.now() })
    .where('attempt_id', '=', session.attempt_id)
    .where('state', '=', 'committing')
    .execute();
  return result;
}
