// The payer left the acquirer's page or its form timed out (redirect-start.ts tells the whole trip): the attempt is
// recorded as abandoned and the transaction rejected, with its callback, in one commit.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { abortedByPayer } from '../../platform/processors/processor.ts';
import { recordAttempt } from './attempt-insert.ts';
import { recordRejection } from './transaction-result.ts';
import {
  abandonSession,
  lockLiveSession,
  methodOf,
  type ReturnResult,
} from './redirect-session.ts';

/** The payer left the acquirer's page (TBK_TOKEN) or its form timed out (TBK_ORDEN_COMPRA only). */
export async function abandonRedirectPayment(
  ctx: AppContext,
  by: { token?: string; attemptId?: string },
  payerIp: string | null,
): Promise<ReturnResult> {
  return inTransaction(ctx.db, async (tx) => {
    const locked = await lockLiveSession(tx, by);
    if (locked === undefined)
      return { transactionId: null, outcome: { kind: 'final', status: 'rejected' } };
    const { session, row } = locked;
    if (!locked.live)
      return { transactionId: row.id, outcome: { kind: 'final', status: row.status } };
    const now = await ctx.accountClock.now(row.account_id, tx);
    const method = await methodOf(tx, session, row.payment);
    await abandonSession(tx, session, now);
    await recordAttempt(tx, {
      id: session.attempt_id,
      transaction_id: row.id,
      payment: method.payment,
      media: method.name,
      outcome: 'abandoned',
      gateway_message: abortedByPayer,
      payer_message: 'Anulaste el pago en Webpay.',
      card_brand: null,
      card_last4: null,
      payer_ip: payerIp,
      created_at: now,
    });
    await recordRejection(
      tx,
      row,
      {
        reason: 'declined',
        gatewayMessage: abortedByPayer,
        paidPayment: method.payment,
        media: method.name,
        cardBrand: null,
        cardLast4: null,
        payerIp,
      },
      now,
    );
    return {
      transactionId: row.id,
      outcome: {
        kind: 'declined',
        payerMessage: 'Anulaste el pago en Webpay: no se realizó ningún cobro.',
        attemptsLeft: 0,
      },
    };
  });
}
