// A transfer Fintoc answered `pending` (its row `sent`) waits for Fintoc's webhook; should that be lost, nothing else
// decided it and the payout stayed `processing` (decision 645's choice, decision 965's "left"). Decision 992 asks
// Fintoc once the transfer has waited fintocLimits.transferPendingRecheckMs, by its id (Fintoc's "Retrieve a
// Transfer", GET /v2/transfers/{id}), as due work:
//   claim:  one `sent` row not touched for the interval, FOR UPDATE SKIP LOCKED, its `updated_at` moved to now (the
//           next ask is an interval later; two workers never ask about one row at once), committed;
//   ask:    outside any transaction; Fintoc's answer goes through applyTransferResult, the webhook's own path, under
//           the payout's row lock and only from an open state: a webhook arriving at the same time moves it once;
//   bound:  a row first sent more than transferPendingAskMsMax ago is left `unresolved` in its claim, its money held,
//           for the operator (decision 750's way); Fintoc's webhook still ends it.
// A read that fails is asked again an interval later.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { fintocLimits } from '../../limits/index.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import { applyTransferResult, transferVerdict } from './transfer-result.ts';

export interface PendingClaim {
  readonly payoutId: string;
  readonly accountId: string;
  readonly transferId: string;
}

/** Claims one pending transfer due a lookup; `undefined` when none is due (one past the bound is left unresolved). */
export async function claimPending(
  ctx: AppContext,
  scope: DueWorkScope,
): Promise<PendingClaim | 'unresolved' | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    const now = ctx.clock.now();
    const cutoff = new Date(now.getTime() - fintocLimits.transferPendingRecheckMs);
    let q = tx
      .selectFrom('fintoc_transfers')
      .select(['payout_id', 'account_id', 'transfer_id', 'created_at'])
      .where('state', '=', 'sent')
      .where('transfer_id', 'is not', null)
      .where('updated_at', '<=', cutoff);
    if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
    const row = await q.orderBy('updated_at').limit(1).forUpdate().skipLocked().executeTakeFirst();
    if (row === undefined || row.transfer_id === null) return undefined;
    if (now.getTime() - row.created_at.getTime() > fintocLimits.transferPendingAskMsMax) {
      await tx
        .updateTable('fintoc_transfers')
        .set({ state: 'unresolved', updated_at: now })
        .where('payout_id', '=', row.payout_id)
        .where('state', '=', 'sent')
        .execute();
      ctx.logger.error(
        { payout: row.payout_id, transfer: row.transfer_id },
        'Fintoc transfer still pending past the bound: unresolved; check Fintoc, then `cobro payouts resolve`',
      );
      return 'unresolved';
    }
    await tx
      .updateTable('fintoc_transfers')
      .set({ updated_at: now })
      .where('payout_id', '=', row.payout_id)
      .execute();
    return { payoutId: row.payout_id, accountId: row.account_id, transferId: row.transfer_id };
  });
}

/** Asks Fintoc about a claimed pending transfer and applies its answer as the webhook would. */
export async function lookUpPending(ctx: AppContext, claim: PendingClaim): Promise<void> {
  const account = await fintocAccount(ctx, ctx.db, claim.accountId);
  if (account === null) return;
  let transfer: Record<string, unknown>;
  try {
    transfer = await account.api.getTransfer(claim.transferId);
  } catch (error) {
    ctx.logger.warn(
      { err: error, payout: claim.payoutId, transfer: claim.transferId },
      'Fintoc pending transfer lookup failed: asked again later',
    );
    return;
  }
  const transferId = typeof transfer.id === 'string' ? transfer.id : claim.transferId;
  await applyTransferResult(ctx, claim.payoutId, transferId, transferVerdict(transfer), transfer);
}
