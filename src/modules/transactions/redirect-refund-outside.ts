// A Webpay Plus sale whose lost commit Transbank's status shows charged and then partly given back outside Cobro
// (`PARTIALLY_NULLIFIED`, decision 1010), once recorded paid for its whole charge: the part given back is recorded at
// once as a refund made outside Cobro (decision 1042), through `cobro refunds record-external`'s own function
// (decision 1025: the same money, sale status and callback as `POST /api/nullification`, nothing sent). Its
// reference comes from the Webpay transaction alone, so the payer's return and the recovery, or two recoveries,
// record it once. Refused (the rules of any refund), the sale stays paid in full and the operator is told how to
// record it.
import type { AppContext } from '../../platform/context.ts';
import type { ApprovedCharge } from '../../platform/processors/processor.ts';

/**
 * The port through which a redirect payment records a refund made outside Cobro: implemented by the refunds module
 * (refunds/refund-external.ts, decision 1025, lent in refunds/ports.ts) and wired by the composition root as
 * ctx.refundsOutside, so transactions imports nothing of refunds, which locks and reads the sales of transactions.
 */
export interface RefundOutsideRecorder {
  /** Its own commit; the same `reference` for the same sale and amount again records nothing (`already`). */
  record(
    ctx: AppContext,
    asked: {
      readonly transactionId: string;
      readonly amountMinor: bigint;
      readonly reference: string;
    },
  ): Promise<
    | { readonly ok: true; readonly refund: { readonly id: string }; readonly already: boolean }
    | { readonly ok: false; readonly error: string }
  >;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** Built once by the composition (src/runtime.ts): the refunds module's record of a refund made outside Cobro. */
    readonly refundsOutside: RefundOutsideRecorder;
  }
}

/** The redirect session whose lost commit the status decided (redirect-session.ts). */
interface DecidedSession {
  readonly attempt_id: string;
  readonly transaction_id: string;
  readonly token: string;
}

export async function recordRefundedOutside(
  ctx: AppContext,
  session: DecidedSession,
  refundedOutside: NonNullable<ApprovedCharge['refundedOutside']>,
): Promise<void> {
  // Only a sale this very attempt paid (now or by an earlier record of it): one another attempt decided is no charge
  // of this session's, and recording the attempt said so (attempt-outcome.ts).
  const sale = await ctx.db
    .selectFrom('transactions')
    .select('charge_key')
    .where('id', '=', session.transaction_id)
    .executeTakeFirst();
  if (sale?.charge_key !== session.attempt_id) return;
  const { amountMinor, reference } = refundedOutside;
  const facts = {
    attempt: session.attempt_id,
    transaction: session.transaction_id,
    token: session.token,
    refundedOutsideMinor: amountMinor.toString(),
    reference,
  };
  const result = await ctx.refundsOutside.record(ctx, {
    transactionId: session.transaction_id,
    amountMinor,
    reference,
  });
  if (result.ok && result.already) {
    // A re-read of a record already made (the payer's return and the recovery, or a recovery run again after both
    // commits): the error was logged when the refund was recorded, and nothing changed now (decision 1043).
    ctx.logger.info(
      { ...facts, refund: result.refund.id, already: true },
      'Webpay shows the lost commit charged and partly refunded outside Cobro: that refund was already recorded',
    );
    return;
  }
  if (result.ok) {
    ctx.logger.error(
      { ...facts, refund: result.refund.id, already: false },
      'Webpay shows the lost commit charged and partly refunded outside Cobro: the sale is paid and the part given back recorded as a refund made outside Cobro',
    );
    return;
  }
  ctx.logger.error(
    { ...facts, why: result.error },
    `Webpay shows the lost commit charged and partly refunded outside Cobro (${amountMinor} given back): the sale is paid, but the part given back could not be recorded; check the refunds at Transbank and record what Cobro does not show with cobro refunds record-external ${session.transaction_id} --amount N --reference TEXT`,
  );
}
