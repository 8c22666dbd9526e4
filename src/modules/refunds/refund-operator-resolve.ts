// Operator resolution of an unresolved processor refund (`cobro refunds resolve`, decision 820). A refund the processor
// may have made but will not be asked about again (decision 785's `unresolved`, or decision 745's `in_progress` past
// refundLimits.inProgressAskMsMax) stays `complete` with its money in refund clearing until the processor's webhook
// ends it; when none comes, the operator checks the processor and records what it shows here, through the same path
// the webhook takes (refund-answer.ts): `succeeded` makes it `reverse_completed`, `failed` gives the money back as a
// refusal does (give-back.ts) and makes it `reverse_deleted`; both write the refund's `nullification.result` callback.
import type { AppContext } from '../../platform/context.ts';
import type { RefundOutcome } from '../../platform/processors/processor.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { applyRefundAnswer } from './refund-answer.ts';
import { lockNullification, type NullificationRow } from './repository.ts';
import { isUnresolved } from './unresolved.ts';

export const operatorOutcomes = ['succeeded', 'failed'] as const;
export type OperatorOutcome = (typeof operatorOutcomes)[number];

export type RefundResolveResult =
  | { readonly ok: true; readonly refund: NullificationRow }
  /** `unknown`: no refund with that id; `refused`: it is not unresolved, nothing changed. */
  | { readonly ok: false; readonly code: 'unknown' | 'refused'; readonly error: string };

/** Why the refund is not the operator's to resolve, or null when it is unresolved (complete, no longer asked). */
function notUnresolved(row: NullificationRow): string | null {
  if (isUnresolved(row)) return null;
  if (row.channel !== 'processor')
    return `refund ${row.id} is a bank-transfer refund (${row.status}): its payout decides it (cobro payouts resolve)`;
  if (row.status !== 'complete') return `refund ${row.id} is ${row.status}, not unresolved`;
  return `refund ${row.id} is complete and still asked at the processor (next at ${row.dispatch_due_at?.toISOString()}), not unresolved`;
}

function outcomeOf(row: NullificationRow, outcome: OperatorOutcome): RefundOutcome {
  // The processor's id when it answered one (an `in_progress` past its asking bound), else a mark of the operator's.
  if (outcome === 'succeeded')
    return { approved: true, refundCode: row.refund_code ?? `operator:${row.id}` };
  return {
    approved: false,
    gatewayMessage: 'refund failed at the processor (cobro refunds resolve)',
  };
}

export async function resolveRefund(
  ctx: AppContext,
  id: string,
  outcome: OperatorOutcome,
): Promise<RefundResolveResult> {
  return inTransaction(ctx.db, async (tx): Promise<RefundResolveResult> => {
    const row = await lockNullification(tx, id);
    if (row === undefined) return { ok: false, code: 'unknown', error: `no refund with id ${id}` };
    const why = notUnresolved(row);
    if (why !== null) return { ok: false, code: 'refused', error: why };
    await applyRefundAnswer(ctx, tx, row, outcomeOf(row, outcome));
    const refund = await lockNullification(tx, id);
    if (refund === undefined) throw new Error(`nullification ${id} vanished under its lock`);
    return { ok: true, refund };
  });
}
