// A refund the merchant already made at the acquirer (Transbank's portal, Fintoc's dashboard), recorded by the
// operator (`cobro refunds record-external`, decision 1025): decision 1010 records a Webpay sale read
// `PARTIALLY_NULLIFIED` paid in full, so without this the merchant's wallet overstated its money. The refund is
// registered exactly as `POST /api/nullification` registers one (nullify.ts: the same refusals, money, sale status
// and `nullification.result` callback, in one commit), then, nothing being sent to the processor, moved at once to
// `reverse_completed` through the processor answer's own path (refund-answer.ts) under the code
// `external:<reference>`. A refund waiting for funds makes that move when it is collected (collection.ts). The
// reference is the idempotency key, per sale, checked under the sale's row lock: the same reference again records
// nothing (the same amount) or is refused (another amount).
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { lockTransaction } from '../transactions/repository.ts';
import { register } from './nullify.ts';
import { applyRefundAnswer } from './refund-answer.ts';
import { lockNullification, type NullificationRow } from './repository.ts';

/** The refund code of a refund made at the acquirer: `external:<reference>`. */
export const externalCodePrefix = 'external:';

export function isExternalRefund(row: Pick<NullificationRow, 'refund_code'>): boolean {
  return row.refund_code?.startsWith(externalCodePrefix) === true;
}

export interface ExternalRefund {
  readonly transactionId: string;
  readonly amountMinor: bigint;
  readonly reference: string;
}

export type ExternalRefundResult =
  | { readonly ok: true; readonly refund: NullificationRow; readonly already: boolean }
  /** `unknown`: no sale with that id; `refused`: the rules refuse it, nothing changed. */
  | { readonly ok: false; readonly code: 'unknown' | 'refused'; readonly error: string };

export async function recordExternalRefund(
  ctx: AppContext,
  asked: ExternalRefund,
): Promise<ExternalRefundResult> {
  return inTransaction(ctx.db, async (tx): Promise<ExternalRefundResult> => {
    // The sale's row lock first, as every refund of it takes it (decision 060): the reference check below holds.
    const sale = await lockTransaction(tx, asked.transactionId);
    if (sale === undefined)
      return { ok: false, code: 'unknown', error: `no transaction with id ${asked.transactionId}` };
    const refundCode = `${externalCodePrefix}${asked.reference}`;
    const earlier = await tx
      .selectFrom('nullifications')
      .selectAll()
      .where('transaction_id', '=', sale.id)
      .where('refund_code', '=', refundCode)
      .executeTakeFirst();
    if (earlier !== undefined) {
      if (BigInt(earlier.amount_minor) !== asked.amountMinor)
        return {
          ok: false,
          code: 'refused',
          error: `reference ${asked.reference} already recorded refund ${earlier.id} of ${earlier.amount_minor} ${earlier.currency} for ${sale.id}: use another reference; nothing was recorded`,
        };
      return { ok: true, refund: earlier, already: true };
    }
    const registered = await register(
      ctx,
      tx,
      sale.account_id,
      {
        id: sale.id,
        amount: asked.amountMinor,
        subject: `devolución hecha fuera de Cobro (${asked.reference})`,
      },
      refundCode,
    );
    if (!registered.ok)
      return {
        ok: false,
        code: 'refused',
        error: `${registered.failure.type}: ${registered.failure.message_error}; nothing was recorded`,
      };
    const row = await lockNullification(tx, registered.nullificationId);
    if (row === undefined) throw new Error(`nullification ${registered.nullificationId} vanished`);
    // Collected: the acquirer already gave it back, so it ends now; awaiting funds, when collected.
    if (row.status === 'complete')
      await applyRefundAnswer(ctx, tx, row, { approved: true, refundCode });
    const refund = await lockNullification(tx, row.id);
    if (refund === undefined) throw new Error(`nullification ${row.id} vanished under its lock`);
    return { ok: true, refund, already: false };
  });
}
