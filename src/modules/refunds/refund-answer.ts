// Records a processor's answer to a refund (docs/refunds.md) under the refund's row lock, while it is still
// `complete`, so a late, repeated or racing answer changes nothing. Approved: `reverse_completed`. Refused:
// `reverse_deleted`, and the collected money goes back where it came from (give-back.ts). Taken but not finished
// (Fintoc's `created` and `in_progress`, decision 745): it stays `complete` with the processor's id of the refund, and
// the `refund-dispatch` due work asks how it stands after refundLimits.inProgressRecheckMs, until
// refundLimits.inProgressAskMsMax after its registration: there asking stops and an error is logged for the operator
// (the processor's webhook still ends it). Unresolved (decision 785: an earlier dispatch may have made it and the
// processor will not send it again): it stays `complete`, no longer asked about, an error logged for the operator.
// The dispatch records what the processor answers; Fintoc's refund.* webhook what Fintoc reports.
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { RefundOutcome } from '../../platform/processors/processor.ts';
import { refundLimits } from '../../limits/index.ts';
import { giveBack } from './give-back.ts';
import { lockNullification, type NullificationRow } from './repository.ts';
import { moveNullification } from './transition.ts';

export type RefundAnswerResult =
  | 'reverse_completed'
  | 'reverse_deleted'
  | 'in_progress'
  | 'unresolved'
  | 'final';

async function keepAsking(
  ctx: AppContext,
  tx: Tx,
  row: NullificationRow,
  refundCode: string,
  at: Date,
): Promise<void> {
  // The bound is the refund's age on its account's clock (created_at is dated there); the next ask is dated on the
  // service clock, where the dispatch's due time and lease are (decision 785).
  const nextMs = at.getTime() + refundLimits.inProgressRecheckMs;
  const lastMs = row.created_at.getTime() + refundLimits.inProgressAskMsMax;
  const due =
    nextMs <= lastMs
      ? new Date(ctx.clock.now().getTime() + refundLimits.inProgressRecheckMs)
      : null;
  if (due === null && row.dispatch_due_at !== null)
    ctx.logger.error(
      { nullification: row.id, refund: refundCode },
      'refund still unfinished at the processor past refundLimits.inProgressAskMsMax: no longer asked; check it there, then `cobro refunds resolve`',
    );
  await tx
    .updateTable('nullifications')
    .set({ refund_code: refundCode, dispatch_due_at: due })
    .where('id', '=', row.id)
    .execute();
}

export async function recordRefundAnswer(
  ctx: AppContext,
  id: string,
  outcome: RefundOutcome,
): Promise<RefundAnswerResult> {
  return inTransaction(ctx.db, async (tx) => {
    const row = await lockNullification(tx, id);
    if (row === undefined || row.status !== 'complete') return 'final';
    return applyRefundAnswer(ctx, tx, row, outcome);
  });
}

/**
 * Records the answer on a `complete` refund whose row lock the caller holds: the one path of the dispatch, Fintoc's
 * webhook and the operator's `cobro refunds resolve` (decision 820).
 */
export async function applyRefundAnswer(
  ctx: AppContext,
  tx: Tx,
  row: NullificationRow,
  outcome: RefundOutcome,
): Promise<Exclude<RefundAnswerResult, 'final'>> {
  assert(row.status === 'complete', `refund ${row.id} answered while ${row.status}`);
  const at = await ctx.accountClock.now(row.account_id, tx);
  if (outcome.approved === 'in_progress') {
    await keepAsking(ctx, tx, row, outcome.refundCode, at);
    return 'in_progress';
  }
  if (outcome.approved === 'unresolved') {
    // Decision 785: the processor may have made it and will not send it again. It stays `complete` (its money in
    // refund clearing), no longer asked about; the processor's webhook still ends it, else the operator.
    ctx.logger.error(
      { nullification: row.id, reason: outcome.reason },
      'refund unresolved at the processor: no longer asked or sent; check it there, then `cobro refunds resolve`',
    );
    await tx
      .updateTable('nullifications')
      .set({ dispatch_due_at: null })
      .where('id', '=', row.id)
      .execute();
    return 'unresolved';
  }
  if (!outcome.approved) {
    await giveBack(ctx, tx, row, at);
    await moveNullification(ctx, tx, row, 'reverse_deleted', at, {
      dispatch_due_at: null,
      gateway_message: outcome.gatewayMessage,
    });
    return 'reverse_deleted';
  }
  await moveNullification(ctx, tx, row, 'reverse_completed', at, {
    dispatch_due_at: null,
    refund_code: outcome.refundCode,
    gateway_message: null,
  });
  return 'reverse_completed';
}
