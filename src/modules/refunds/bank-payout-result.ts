// A bank refund's payout resolved (decision 112, bank-details.ts): the bank paid it, and the refund is
// `reverse_completed`; or the bank rejected it, and the refund waits for new bank details. Called by the wallet's
// transitionPayout inside the payout's transaction, so the payout's state, its money, the refund's state and its
// callback commit together. The wallet reaches it through its port, ctx.refundPayouts (decision 470).
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { RefundPayoutFollower } from '../wallet/payout-transition.ts';
import { moveNullification } from './transition.ts';

/** Called by transitionPayout when a refund payout is resolved, in its transaction (which holds the payout's lock). */
async function followRefundPayout(
  ctx: AppContext,
  tx: Tx,
  payout: { readonly id: string },
  paid: boolean,
  at: Date,
): Promise<void> {
  const row = await tx
    .selectFrom('nullifications')
    .selectAll()
    .where('payout_id', '=', payout.id)
    .forUpdate()
    .executeTakeFirst();
  if (row === undefined || row.status !== 'complete')
    throw new Error(`refund payout ${payout.id} has no refund waiting for it`);
  await moveNullification(ctx, tx, row, paid ? 'reverse_completed' : 'waiting_bank_details', at);
}

/** The wallet's RefundPayoutFollower port, wired as ctx.refundPayouts by src/runtime.ts. */
export const refundPayoutFollower: RefundPayoutFollower = { follow: followRefundPayout };
