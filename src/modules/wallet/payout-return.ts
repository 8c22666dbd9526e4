// `cobro payouts return`: a paid payout the receiving bank sent back (decisions 915, 980). The bank's results file, or
// the operator's `cobro payouts resolve`, said `success`; days later the bank returns the transfer (account closed, a
// CCA rejection) and puts the money back in the service's account. The payout moves as a Fintoc return does
// (decision 830): `success` -> `banking_error` through transitionPayout, its money from bank clearing back to the
// wallet (journal `payout.returned`), an income movement, the chargeback debt paid first (decision 905) and a second
// `payout.result` callback, all in the payout's transaction under its row lock: a second return refuses. A payout a
// channel sent (a Fintoc transfer) is returned by that channel's word only.
import { limits } from '../../limits/index.ts';
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
import { transitionPayout } from './payout-transition.ts';
import { lockPayout, type PayoutRow } from './repository.ts';

export type ReturnResult = { ok: true; payout: PayoutRow } | { ok: false; error: string };

/** Why the reason cannot be the payout's `reason_rejection`, or null: checked before the database. */
export function returnReasonProblem(reason: string): string | null {
  if (reason === '' || reason.length > limits.payoutResultReasonLengthMax)
    return `--reason must have 1 to ${limits.payoutResultReasonLengthMax} characters`;
  if (!isStorableText(reason)) return '--reason has a character the database cannot store';
  return null;
}

export async function returnPayout(
  ctx: AppContext,
  id: string,
  reason: string,
): Promise<ReturnResult> {
  return inTransaction(ctx.db, async (tx): Promise<ReturnResult> => {
    const row = await lockPayout(tx, id);
    if (row === undefined) return { ok: false, error: `no payout with id ${id}` };
    // A bank refund's payout completed its refund when it was paid: it is never reopened (decision 830).
    if (row.kind === 'refund')
      return { ok: false, error: `payout ${id} pays a bank refund and cannot be returned` };
    // Under the row lock: a second return, run again or at the same time, finds it banking_error and moves nothing.
    if (row.status !== 'success')
      return {
        ok: false,
        error: `payout ${id} is ${row.status}: only a paid (success) payout can be returned`,
      };
    // A Fintoc transfer's return is Fintoc's word (its webhook, decision 830). Any other paid payout (a bank file's,
    // or one the operator made `success` by hand) went to the bank by a way Cobro does not watch: the operator who
    // knows it was paid knows when it came back (decision 980).
    const channel = await ctx.payoutSenders.returnedByChannel(tx, id);
    if (channel !== null) return { ok: false, error: `payout ${id} ${channel}` };
    const at = await ctx.accountClock.now(row.account_id, tx);
    const payout = await transitionPayout(ctx, tx, row, 'banking_error', { at, reason });
    return { ok: true, payout };
  });
}
