// A Fintoc transfer's result moves its payout (issue 34): `succeeded` -> success, `failed`/`rejected`/`returned`
// -> banking_error with Fintoc's reason, through the wallet's transitionPayout (the seed's states, the same money
// and callback as any resolution). Under the payout's row lock and only from an open state, so a replayed or late
// event, or the create's own answer racing the webhook, resolves a payout once. The transfer's row keeps Fintoc's
// word, `returned` included (decision 865), for `cobro fintoc reconcile`.
import { fintocLimits } from '../../limits/index.ts';
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Timestamp } from '../../platform/db/types.ts';
import { lockPayout } from '../wallet/repository.ts';
import { transitionPayout } from '../wallet/payout-transition.ts';
import { outcomeOf } from '../wallet/payout-states.ts';

interface FintocTransferTable {
  payout_id: string;
  account_id: string;
  transfer_id: string | null;
  /**
   * `unresolved`: its answer lost and Fintoc's list naming no transfer for it; the operator's (decision 750).
   * `returned`: sent back by the receiving bank, its money back in the Fintoc account (decisions 830, 865).
   */
  state: 'sending' | 'sent' | 'succeeded' | 'failed' | 'unresolved' | 'returned';
  attempts: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    fintoc_transfers: FintocTransferTable;
  }
}

export type TransferVerdict =
  | { readonly kind: 'succeeded' }
  /** `returned`: the receiving bank sent back a transfer, even one that had succeeded (decision 830). */
  | { readonly kind: 'failed'; readonly reason: string; readonly returned: boolean }
  | { readonly kind: 'open' };

/** What a Fintoc transfer object says about its payout. */
export function transferVerdict(transfer: Record<string, unknown>): TransferVerdict {
  const status = String(transfer.status ?? '');
  if (status === 'succeeded') return { kind: 'succeeded' };
  if (status === 'failed' || status === 'rejected' || status === 'returned') {
    const why = transfer.failure_reason ?? transfer.return_reason ?? transfer.reason ?? null;
    const reason = `Fintoc: transfer ${status}${typeof why === 'string' && why !== '' ? `, ${why}` : ''}`;
    return {
      kind: 'failed',
      reason: reason.slice(0, fintocLimits.reasonLengthMax),
      returned: status === 'returned',
    };
  }
  return { kind: 'open' };
}

/** The transfer row's state a verdict leaves: a returned transfer left the account and came back (decision 865). */
function rowStateOf(verdict: TransferVerdict): FintocTransferTable['state'] {
  if (verdict.kind === 'open') return 'sent';
  if (verdict.kind === 'succeeded') return 'succeeded';
  return verdict.returned ? 'returned' : 'failed';
}

export type ApplyResult =
  | 'applied'
  | 'already_final'
  | 'unknown_payout'
  | 'still_open'
  | 'other_transfer';

/** Applies a transfer's verdict to the payout it was sent for; `transferId` is recorded when first known. */
export async function applyTransferResult(
  ctx: AppContext,
  payoutId: string,
  transferId: string | null,
  verdict: TransferVerdict,
): Promise<ApplyResult> {
  return inTransaction(ctx.db, async (tx): Promise<ApplyResult> => {
    const payout = await lockPayout(tx, payoutId);
    const sent = await tx
      .selectFrom('fintoc_transfers')
      .select(['state', 'transfer_id'])
      .where('payout_id', '=', payoutId)
      .executeTakeFirst();
    if (payout === undefined || sent === undefined) return 'unknown_payout';
    // The payout's one transfer is known: an event about another transfer naming it (one Fintoc made again after
    // dropping the key, or a mislabelled one) never decides it, lest a failure of that one give back the money the
    // known one pays (decision 965). It is the operator's: its movement is unmatched in `cobro fintoc reconcile`.
    if (sent.transfer_id !== null && transferId !== null && transferId !== sent.transfer_id) {
      ctx.logger.error(
        { payout: payout.id, known: sent.transfer_id, reported: transferId, verdict: verdict.kind },
        'Fintoc reports another transfer for a payout whose transfer is known: ignored; check Fintoc',
      );
      return 'other_transfer';
    }
    const at = await ctx.accountClock.now(payout.account_id, tx);
    const state = rowStateOf(verdict);
    const undecided = !['succeeded', 'failed', 'returned'].includes(sent.state);
    // A return reverses a success: the row says so in the transaction that gives the money back, and reconcile
    // then expects the payment and its return (decision 865).
    const moves = undecided || (state === 'returned' && sent.state === 'succeeded');
    if (moves || sent.transfer_id === null) {
      await tx
        .updateTable('fintoc_transfers')
        .set({
          ...(moves ? { state } : {}),
          ...(sent.transfer_id === null && transferId !== null ? { transfer_id: transferId } : {}),
          updated_at: ctx.clock.now(),
        })
        .where('payout_id', '=', payoutId)
        .execute();
    }
    if (verdict.kind === 'open') return 'still_open';
    // In Chile a transfer that succeeded can still come back (a CCA rejection: Fintoc's `returned`, the money back
    // in the Fintoc account): the paid payout becomes a banking_error and its money returns to the wallet, once,
    // as the row lock and the state machine allow (decision 830). Any other late result changes nothing.
    const returnOfPaid =
      verdict.kind === 'failed' && verdict.returned && payout.status === 'success';
    if (outcomeOf(payout.status) !== 'open' && !returnOfPaid) {
      // Given back by hand (`cobro payouts resolve`, decision 750) and yet made: the operator's to recover, and
      // `cobro fintoc reconcile` reports it until then (decision 875).
      if (verdict.kind === 'succeeded' && outcomeOf(payout.status) === 'rejected')
        ctx.logger.error(
          { payout: payout.id, status: payout.status },
          'Fintoc reports succeeded a transfer whose payout was given back to the wallet: paid twice; recover it',
        );
      return 'already_final';
    }
    await transitionPayout(
      ctx,
      tx,
      payout,
      verdict.kind === 'succeeded' ? 'success' : 'banking_error',
      {
        at,
        ...(verdict.kind === 'failed' ? { reason: verdict.reason } : {}),
      },
    );
    return 'applied';
  });
}

/**
 * Leaves a payout whose transfer may exist at Fintoc to the operator (decision 750): its row `unresolved`, the payout
 * `processing` with its money held. Only from `sending`, so an answer or webhook that resolved it meanwhile stands.
 */
export async function markUnresolved(
  ctx: AppContext,
  payoutId: string,
  why: string,
): Promise<void> {
  const moved = await ctx.db
    .updateTable('fintoc_transfers')
    .set({ state: 'unresolved', updated_at: ctx.clock.now() })
    .where('payout_id', '=', payoutId)
    .where('state', '=', 'sending')
    .executeTakeFirst();
  if (moved.numUpdatedRows > 0n)
    ctx.logger.error(
      { payout: payoutId, why },
      'Fintoc transfer unresolved: check Fintoc, then `cobro payouts resolve`',
    );
}
