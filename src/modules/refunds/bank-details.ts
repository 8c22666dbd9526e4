// Refunds of bank-transfer and other non-card payments (decision 112): the processor cannot give the money back,
// so once the refund's money is collected it waits (`waiting_bank_details`) for the operator to record the payer's
// bank details (`cobro refunds set-bank-details`), checked as a payout destination. Then a payout of kind `refund`
// carries it through the payouts' bank channel (`complete` while it is out); the bank paying it completes the
// refund (`reverse_completed`), the bank rejecting it sends it back to `waiting_bank_details` for new details.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { checkBankAccount, type BankAccountInput } from '../wallet/bank-account.ts';
import { createRefundPayout } from '../wallet/refund-payout.ts';
import { findNullification, lockNullification, type NullificationRow } from './repository.ts';
import { moveNullification } from './transition.ts';

export type BankDetails = Omit<BankAccountInput, 'currency'>;

export type RecordedBankDetails =
  | { ok: true; refund: NullificationRow; payoutId: string }
  | { ok: false; error: string };

/** Records the payer's bank details of a refund waiting for them, and sends its payout out. */
export async function recordBankDetails(
  ctx: AppContext,
  refundId: string,
  details: BankDetails,
): Promise<RecordedBankDetails> {
  const found = await findNullification(ctx.db, refundId);
  if (found === undefined) return { ok: false, error: `no refund with id ${refundId}` };
  const checked = await checkBankAccount(ctx, { ...details, currency: found.currency });
  if (!checked.ok) return checked;
  const bank = checked.value;
  return inTransaction(ctx.db, async (tx): Promise<RecordedBankDetails> => {
    const row = await lockNullification(tx, refundId);
    if (row === undefined) return { ok: false, error: `no refund with id ${refundId}` };
    if (row.status !== 'waiting_bank_details') {
      return {
        ok: false,
        error: `refund ${refundId} is ${row.status}: only a refund in waiting_bank_details takes bank details`,
      };
    }
    const at = await ctx.accountClock.now(row.account_id, tx);
    const payment = await tx
      .selectFrom('transactions')
      .select('email')
      .where('id', '=', row.transaction_id)
      .executeTakeFirstOrThrow();
    const earlier = await tx
      .selectFrom('payouts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', row.account_id)
      .where('kind', '=', 'refund')
      .where('order', 'like', `${row.id}-%`)
      .executeTakeFirstOrThrow();
    const payoutId = await createRefundPayout(ctx, tx, {
      accountId: row.account_id,
      order: `${row.id}-${Number(earlier.n) + 1}`,
      currency: row.currency,
      amountMinor: BigInt(row.amount_minor),
      subject: row.subject,
      at,
      destination: {
        email: payment.email,
        phone: '',
        accountbankName: bank.holderName,
        accountbankRut: bank.rut,
        accountbankSbif: bank.sbif,
        accountbankType: bank.type,
        accountbankNum: bank.num,
      },
    });
    const refund = await moveNullification(ctx, tx, row, 'complete', at, { payout_id: payoutId });
    ctx.logger.info(
      { refund: row.id, payout: payoutId, numLast4: bank.num.slice(-4) },
      'refund bank details recorded; payout created',
    );
    return { ok: true, refund, payoutId };
  });
}
