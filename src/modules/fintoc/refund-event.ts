// Fintoc's refund.* webhook events (decision 745): Fintoc answers a refund `created` or `in_progress` and ends it
// later `succeeded`, `failed` (the merchant's Fintoc balance did not cover it for 5 business days, or the payer's
// account is closed) or `canceled`. The event names Cobro's refund by the metadata Cobro sent with it
// (`cobro_nullification_id`), else by Fintoc's refund id kept when Fintoc first answered; the answer is recorded as
// the dispatch records one (refund-answer.ts): once, only while the refund is `complete`, the money back on failure.
import type { AppContext } from '../../platform/context.ts';
import { refundOutcome } from '../../platform/processors/fintoc-processor.ts';
import { recordRefundAnswer } from '../refunds/refund-answer.ts';

type Obj = Record<string, unknown>;

export async function onRefund(
  ctx: AppContext,
  accountId: string,
  type: string,
  data: Obj,
): Promise<string> {
  const metadata = (
    typeof data.metadata === 'object' && data.metadata !== null ? data.metadata : {}
  ) as Obj;
  const nullificationId = metadata.cobro_nullification_id;
  const refundId = typeof data.id === 'string' && data.id !== '' ? data.id : null;
  let q = ctx.db
    .selectFrom('nullifications')
    .select(['id', 'account_id', 'channel', 'amount_minor']);
  if (typeof nullificationId === 'string') q = q.where('id', '=', nullificationId);
  else if (refundId !== null) q = q.where('refund_code', '=', refundId);
  else return 'not_ours';
  const row = await q.executeTakeFirst();
  if (row === undefined) return 'not_ours';
  if (row.account_id !== accountId || row.channel !== 'processor') return 'unknown_refund';
  const outcome = refundOutcome(
    { ...data, status: data.status ?? type.slice('refund.'.length) },
    BigInt(row.amount_minor),
  );
  // Unfinished and with no id to ask Fintoc about later: the dispatch's own answer keeps it.
  if (outcome.approved === 'in_progress' && refundId === null) return 'in_progress';
  return recordRefundAnswer(ctx, row.id, outcome);
}
