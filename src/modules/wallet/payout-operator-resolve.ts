// Operator resolution of a payout or withdrawal (`cobro payouts resolve`): how production payouts, which wait
// for a bank channel Cobro does not have yet, reach a final state (decision 020).
import type { AppContext } from '../../platform/context.ts';
import {
  canTransition,
  fraudRejectionReason,
  outcomeOf,
  sandboxRejectionReason,
  type PayoutStatus,
} from './payout-states.ts';
import { transitionPayout } from './payout-transition.ts';
import { lockPayout, type PayoutRow } from './repository.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';

/**
 * The port through which a channel that sent a payout to a bank says it still decides it (Fintoc, decision 512):
 * implemented by the fintoc module and wired by the composition root as ctx.payoutSenders, so the wallet imports
 * nothing of it (decision 645).
 */
export interface PayoutSenders {
  /** Under the payout's lock: why its channel decides it now (a transfer sent, its answer awaited), or null. */
  inFlight(tx: Tx, payoutId: string): Promise<string | null>;
  /**
   * Under the payout's lock: why a paid payout's return is its channel's word, not the operator's (a transfer the
   * channel made, whose return the channel reports), or null when no channel sent it (decision 980).
   */
  returnedByChannel(tx: Tx, payoutId: string): Promise<string | null>;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** Built once by the composition (src/runtime.ts): the channels that may hold a payout in flight. */
    readonly payoutSenders: PayoutSenders;
  }
}

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
    // A transfer in flight is its channel's to decide: resolved by hand too, it would be paid out and given back.
    const inFlight = await ctx.payoutSenders.inFlight(tx, id);
    if (inFlight !== null) return { ok: false, error: `payout ${id}: ${inFlight}` };
    // A paid payout stays paid here: only its channel's word (decision 830) or `payouts return` reopens it.
    if (outcomeOf(row.status) !== 'open' || !canTransition(row.status, to)) {
      // A paid payout the bank sent back has its own command (decisions 915, 980): say so.
      const returnable =
        row.status === 'success' &&
        row.kind !== 'refund' &&
        (await ctx.payoutSenders.returnedByChannel(tx, id)) === null;
      const hint = returnable
        ? `; a payout the bank returned: cobro payouts return ${id} --reason TEXT`
        : '';
      return { ok: false, error: `payout ${id} is ${row.status} and cannot become ${to}${hint}` };
    }
    const at = await ctx.accountClock.now(row.account_id, tx);
    const payout = await transitionPayout(ctx, tx, row, to, {
      at,
      reason: reason ?? defaultReason(to),
      dueAt: null,
    });
    return { ok: true, payout };
  });
}
