// Sends production payouts and withdrawals as Fintoc transfers (issue 34, decision 512), as due work:
//   claim:  one pending CLP payout of an account that can send transfers, under its row lock: pending ->
//           processing (no money moves, no callback) and a fintoc_transfers row `sending`, in one commit; a payee
//           bank Fintoc names no institution for is a banking_error in that commit instead, nothing sent (decision 750);
//   send:   outside any transaction, Fintoc's create transfer with the payout's id as idempotency key, its answer
//           or refusal recorded (transfer-send.ts);
//   lost:   no answer (timeout, reset, 5xx, a crash): the row stays `sending` and, after
//           fintocLimits.transferResendAfterMs, is looked up in Fintoc's transfer list and, when no transfer names it,
//           sent again with the same key (Fintoc answers a repeated key with its first answer: never a second
//           transfer). Resends stop at fintocLimits.transferRetriesMax tries or transferResendWindowMs, well before
//           Fintoc may drop the key (24 hours) and take a resend as new; a try past them that finds nothing leaves the
//           payout `unresolved`, its money held for the operator, never given back while a transfer may exist
//           (decision 750). The webhook may resolve the payout meanwhile; a later try then changes nothing.
//   pending: a transfer Fintoc answered `pending` whose webhook has not come after fintocLimits.transferPendingRecheckMs
//           is looked up by its id, its answer applied as the webhook's (transfer-pending.ts, decision 992).
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { fintocLimits } from '../../limits/index.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import { lockPayout, type PayoutRow } from '../wallet/repository.ts';
import type { PayoutSenders } from '../wallet/payout-operator-resolve.ts';
import type { Tx } from '../../platform/db/types.ts';
import { transitionPayout } from '../wallet/payout-transition.ts';
import { fintocInstitutionOf, unmappedBankReason } from './institutions.ts';
import { applyTransferResult, markUnresolved, transferVerdict } from './transfer-result.ts';
import { lookUpTransfer, sendTransfer } from './transfer-send.ts';
import { claimPending, lookUpPending, type PendingClaim } from './transfer-pending.ts';

/** A claimed payout: a new one to send, one whose answer was lost (its try number), or one refused in its claim. */
type Claim =
  | { readonly kind: 'new'; readonly payout: PayoutRow }
  | {
      readonly kind: 'stale';
      readonly payout: PayoutRow;
      readonly tryNumber: number;
      readonly firstSentAt: Date;
    }
  | { readonly kind: 'refused' };

async function claimStale(ctx: AppContext, scope: DueWorkScope): Promise<Claim | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    const cutoff = new Date(ctx.clock.now().getTime() - fintocLimits.transferResendAfterMs);
    let q = tx
      .selectFrom('fintoc_transfers')
      .select(['payout_id', 'attempts', 'created_at'])
      .where('state', '=', 'sending')
      .where('updated_at', '<=', cutoff);
    if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
    const row = await q.orderBy('updated_at').limit(1).forUpdate().skipLocked().executeTakeFirst();
    if (row === undefined) return undefined;
    await tx
      .updateTable('fintoc_transfers')
      .set({ attempts: row.attempts + 1, updated_at: ctx.clock.now() })
      .where('payout_id', '=', row.payout_id)
      .execute();
    const payout = await lockPayout(tx, row.payout_id);
    if (payout === undefined) return undefined;
    return { kind: 'stale', payout, tryNumber: row.attempts + 1, firstSentAt: row.created_at };
  });
}

async function claimNew(ctx: AppContext, scope: DueWorkScope): Promise<Claim | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    let q = tx
      .selectFrom('payouts')
      .selectAll()
      .where('status', '=', 'pending')
      .where('kind', 'in', ['payout', 'withdrawal'])
      .where('currency', '=', 'CLP')
      .where('batch_id', 'is', null)
      // Past Fintoc's largest transfer: the bank file's (payout-batch-export.ts, decision 900).
      .where('amount_minor', '<=', fintocLimits.transferAmountMaxMinor)
      .where('account_id', 'in', (s) =>
        s
          .selectFrom('fintoc_settings')
          .select('account_id')
          .where('jws_key_enc', 'is not', null)
          .where('source_account', 'is not', null),
      );
    if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
    const payout = await q
      .orderBy('created_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (payout === undefined) return undefined;
    const at = await ctx.accountClock.now(payout.account_id, tx);
    // Fintoc names the payee's bank by its own id: a bank it has none for is refused here, before anything is sent.
    if (fintocInstitutionOf(payout.accountbank_sbif) === null) {
      const reason = unmappedBankReason(payout.accountbank_sbif);
      await transitionPayout(ctx, tx, payout, 'banking_error', { at, reason });
      return { kind: 'refused' } as const;
    }
    const moved = await transitionPayout(ctx, tx, payout, 'processing', { at, dueAt: null });
    const now = ctx.clock.now();
    await tx
      .insertInto('fintoc_transfers')
      .values({
        payout_id: payout.id,
        account_id: payout.account_id,
        transfer_id: null,
        state: 'sending',
        attempts: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { kind: 'new', payout: moved } as const;
  });
}

/**
 * A try after a lost answer: the transfer looked up first (its answer recorded if Fintoc made it), else sent again
 * while within the limits, else left `unresolved`. A lookup that fails is tried again later, within the same limits.
 */
async function retry(ctx: AppContext, claim: Extract<Claim, { kind: 'stale' }>): Promise<void> {
  const { payout, tryNumber, firstSentAt } = claim;
  const account = await fintocAccount(ctx, ctx.db, payout.account_id);
  if (account === null || account.sourceAccount === null) return;
  const source = { ...account, sourceAccount: account.sourceAccount };
  const withinLimits =
    tryNumber - 1 <= fintocLimits.transferRetriesMax &&
    ctx.clock.now().getTime() - firstSentAt.getTime() <= fintocLimits.transferResendWindowMs;
  let found: Record<string, unknown> | null;
  try {
    found = await lookUpTransfer(source, payout.id, firstSentAt);
  } catch (error) {
    ctx.logger.warn({ err: error, payout: payout.id }, 'Fintoc transfer lookup failed');
    if (!withinLimits) await markUnresolved(ctx, payout.id, 'lookups failed past the limits');
    return;
  }
  if (found !== null) {
    const applied = await applyTransferResult(
      ctx,
      payout.id,
      String(found.id),
      transferVerdict(found),
      found,
    );
    // Fintoc shows a transfer for another amount under the payout's key (decision 992): never sent again.
    if (applied === 'amount_mismatch' && !withinLimits)
      await markUnresolved(ctx, payout.id, 'the transfer Fintoc shows is for another amount');
  } else if (withinLimits) await sendTransfer(ctx, source, payout, tryNumber);
  else await markUnresolved(ctx, payout.id, `no transfer found after ${tryNumber} tries`);
}

async function send(ctx: AppContext, payout: PayoutRow): Promise<void> {
  const account = await fintocAccount(ctx, ctx.db, payout.account_id);
  if (account === null || account.sourceAccount === null) return;
  await sendTransfer(ctx, { ...account, sourceAccount: account.sourceAccount }, payout, 1);
}

export async function dispatchFintocPayouts(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  if (ctx.config.mode !== 'production') return 0;
  let processed = 0;
  const limit = Math.min(scope.limit, fintocLimits.dispatchBatchMax);
  while (processed < limit) {
    const claim: Claim | PendingClaim | 'unresolved' | undefined =
      (await claimStale(ctx, scope)) ??
      (await claimPending(ctx, scope)) ??
      (await claimNew(ctx, scope));
    if (claim === undefined) break;
    if (claim === 'unresolved') {
      // Left to the operator in its claim.
    } else if (!('kind' in claim)) await lookUpPending(ctx, claim);
    else if (claim.kind === 'new') await send(ctx, claim.payout);
    else if (claim.kind === 'stale') await retry(ctx, claim);
    processed++;
  }
  return processed;
}

/**
 * The wallet's PayoutSenders port, wired as ctx.payoutSenders by src/runtime.ts: a payout whose Fintoc transfer was
 * sent and not yet answered (`sending`, `sent`) is Fintoc's to decide, by its answer or its webhook (decision 645), or
 * by Cobro's lookup of it (decisions 750, 992).
 */
export const fintocPayoutSenders: PayoutSenders = {
  async inFlight(tx: Tx, payoutId: string) {
    const row = await tx
      .selectFrom('fintoc_transfers')
      .select('state')
      .where('payout_id', '=', payoutId)
      .where('state', 'in', ['sending', 'sent'])
      .executeTakeFirst();
    return row === undefined
      ? null
      : `its Fintoc transfer is ${row.state}: Fintoc's answer, webhook or Cobro's lookup resolves it, and \`cobro fintoc reconcile\` shows what left the account`;
  },
  // Any transfer row, whatever its state (a transfer left `unresolved` and made `success` by hand included): Fintoc
  // reports its return (`transfer.outbound.returned`, decision 830), and a return by hand too would pay it twice.
  async returnedByChannel(tx: Tx, payoutId: string) {
    const row = await tx
      .selectFrom('fintoc_transfers')
      .select('payout_id')
      .where('payout_id', '=', payoutId)
      .executeTakeFirst();
    return row === undefined
      ? null
      : 'was paid by a Fintoc transfer: its return comes from Fintoc (transfer.outbound.returned), not by hand';
  },
};
