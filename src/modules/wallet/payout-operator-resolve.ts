// Operator resolution of a payout or withdrawal (`cobro payouts resolve`): how production payouts, which wait
// for a bank channel Cobro does not have yet, reach a final state (decision 020).
import type { AppContext } from '../../platform/context.ts';
import {
  canTransition,
  fraudRejectionReason,
  sandboxRejectionReason,
  type PayoutStatus,
} from './payout-states.ts';
import { transitionPayout } from './payout-transition.ts';
import { lockPayout, type PayoutRow } from './repository.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';

export const operatorTargets = [
  'processing',
  'success',
  'banking_error',
  'fraud_prevention',
] as const;
export type OperatorTarget = (typeof operatorTargets)[number];

export type ResolveResult = { ok: true; payout: PayoutRow } | { ok: false; error: string };

function defaultReason(to: PayoutStatus): string {
  return to === 'fraud_prevention' ? fraudRejectionReason : sandboxRejectionReason;
}

export async function resolvePayout(
  ctx: AppContext,
  id: string,
  to: OperatorTarget,
  reason: string | null,
): Promise<ResolveResult> {
  return inTransaction(ctx.db, async (tx): Promise<ResolveResult> => {
    const row = await lockPayout(tx, id);
    if (row === undefined) return { ok: false, error: `no payout with id ${id}` };
    if (!canTransition(row.status, to))
      return { ok: false, error: `payout ${id} is ${row.status} and cannot become ${to}` };
    const at = await ctx.accountClock.now(row.account_id, tx);
    const payout = await transitionPayout(ctx, tx, row, to, {
      at,
      reason: reason ?? defaultReason(to),
      dueAt: null,
    });
    return { ok: true, payout };
  });
}
