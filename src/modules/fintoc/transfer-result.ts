// A Fintoc transfer's result moves its payout (issue 34): `succeeded` -> success, `failed`/`rejected`/`returned`
// -> banking_error with Fintoc's reason, through the wallet's transitionPayout (the seed's states, the same money
// and callback as any resolution). Under the payout's row lock and only from an open state, so a replayed or late
// event, or the create's own answer racing the webhook, resolves a payout once. The transfer's row keeps Fintoc's
// word, `returned` included (decision 865), for `cobro fintoc reconcile`. A result whose transfer is for another
// amount or currency than the payout's moves nothing (decision 992): the row keeps what Fintoc reported (`mismatch`),
// an error is logged and reconcile reports it. The webhook, the create's answer and both lookups (decision 750's list
// after a lost answer, decision 992's read of a pending transfer) all come through here.
import { fintocLimits } from '../../limits/index.ts';
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Timestamp, Tx } from '../../platform/db/types.ts';
import { lockPayout, type PayoutRow } from '../wallet/repository.ts';
import { transitionPayout } from '../wallet/payout-transition.ts';
import { outcomeOf } from '../wallet/payout-states.ts';
import { unsignedMinorOf } from '../../platform/money/exact-minor.ts';

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
  /** The last result Fintoc reported for another amount or currency than the payout's (decision 992), or null. */
  mismatch: string | null;
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
  | 'other_transfer'
  | 'amount_mismatch';

/** The Fintoc transfer object a result is about: its `amount` and `currency` are read (exactly, never a float). */
export type ReportedTransfer = Readonly<Record<string, unknown>>;

/** What a result reports unlike the payout (its amount or currency), or null when it is the payout's (decision 992). */
function mismatchOf(
  payout: PayoutRow,
  transferId: string | null,
  verdict: TransferVerdict,
  reported: ReportedTransfer | null,
): string | null {
  if (reported === null) return null;
  const amountMinor = unsignedMinorOf(reported.amount);
  if (amountMinor === BigInt(payout.amount_minor) && reported.currency === payout.currency)
    return null;
  const what = verdict.kind === 'failed' && verdict.returned ? 'returned' : verdict.kind;
  const said = `${String(reported.amount)} ${String(reported.currency)}`;
  return `Fintoc reported transfer ${transferId ?? '(no id)'} ${what} for ${said}, not ${String(payout.amount_minor)} ${payout.currency}`.slice(
    0,
    fintocLimits.reasonLengthMax,
  );
}

/**
 * Why a result must not decide the payout, recorded and logged for the operator, or null when it may: a result about
 * another transfer than the known one (decision 965) or for another amount or currency (decision 992).
 */
async function untrustedResult(
  ctx: AppContext,
  tx: Tx,
  r: {
    readonly payout: PayoutRow;
    readonly sent: { readonly transfer_id: string | null };
    readonly transferId: string | null;
    readonly verdict: TransferVerdict;
    readonly reported: ReportedTransfer | null;
  },
): Promise<'other_transfer' | 'amount_mismatch' | null> {
  const { payout, transferId, verdict, reported } = r;
  const knownId = r.sent.transfer_id;
  // The payout's one transfer is known: an event about another transfer naming it (one Fintoc made again after
  // dropping the key, or a mislabelled one) never decides it, lest a failure of that one give back the money the
  // known one pays (decision 965). It is the operator's: its movement is unmatched in `cobro fintoc reconcile`.
  if (knownId !== null && transferId !== null && transferId !== knownId) {
    ctx.logger.error(
      { payout: payout.id, known: knownId, reported: transferId, verdict: verdict.kind },
      'Fintoc reports another transfer for a payout whose transfer is known: ignored; check Fintoc',
    );
    return 'other_transfer';
  }
  // Fintoc makes what Cobro asked under the payout's key; a result for another amount or currency is a defect at
  // Fintoc or an event Cobro cannot trust: it neither pays the payout nor gives its money back (decision 992).
  const mismatch = mismatchOf(payout, transferId, verdict, reported);
  if (mismatch === null) return null;
  await tx
    .updateTable('fintoc_transfers')
    .set({ mismatch })
    .where('payout_id', '=', payout.id)
    .execute();
  ctx.logger.error(
    { payout: payout.id, transfer: transferId, mismatch },
    'Fintoc reports a transfer result for another amount or currency than the payout: ignored; check Fintoc',
  );
  return 'amount_mismatch';
}

/**
 * Applies a transfer's verdict to the payout it was sent for; `transferId` is recorded when first known. `reported` is
 * the transfer Fintoc described (its amount and currency), null only for a create Fintoc refused (no transfer).
 */
export async function applyTransferResult(
  ctx: AppContext,
  payoutId: string,
  transferId: string | null,
  verdict: TransferVerdict,
  reported: ReportedTransfer | null,
): Promise<ApplyResult> {
  return inTransaction(ctx.db, async (tx): Promise<ApplyResult> => {
    const payout = await lockPayout(tx, payoutId);
    const sent = await tx
      .selectFrom('fintoc_transfers')
      .select(['state', 'transfer_id'])
      .where('payout_id', '=', payoutId)
      .executeTakeFirst();
    if (payout === undefined || sent === undefined) return 'unknown_payout';
    const untrusted = await untrustedResult(ctx, tx, {
      payout,
      sent,
      transferId,
      verdict,
      reported,
    });
    if (untrusted !== null) return untrusted;
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
