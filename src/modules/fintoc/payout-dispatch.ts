// Sends production payouts and withdrawals as Fintoc transfers (issue 34, decision 512), as due work:
//   claim:  one pending CLP payout of an account that can send transfers, under its row lock: pending ->
//           processing (no money moves, no callback) and a fintoc_transfers row `sending`, in one commit;
//   send:   outside any transaction, Fintoc's create transfer with the payout's id as idempotency key;
//   answer: the transfer's id and state recorded (a final state resolves the payout at once); a refusal
//           (invalid request) is a banking_error with Fintoc's message;
//   lost:   no answer (timeout, reset, 5xx, a crash): the row stays `sending` and is sent again after
//           fintocLimits.transferResendAfterMs with the same key, which Fintoc answers with the same transfer:
//           never a second transfer. The webhook may resolve the payout meanwhile; the resend then changes nothing.
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { fintocLimits } from '../../limits/index.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import { lockPayout, type PayoutRow } from '../wallet/repository.ts';
import type { PayoutSenders } from '../wallet/payout-operator-resolve.ts';
import type { Tx } from '../../platform/db/types.ts';
import { transitionPayout } from '../wallet/payout-transition.ts';
import { applyTransferResult, transferVerdict } from './transfer-result.ts';

const accountTypes = {
  '1': 'checking_account',
  '2': 'sight_account',
  '3': 'savings_account',
} as const;

async function claimStale(ctx: AppContext, scope: DueWorkScope): Promise<PayoutRow | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    const cutoff = new Date(ctx.clock.now().getTime() - fintocLimits.transferResendAfterMs);
    let q = tx
      .selectFrom('fintoc_transfers')
      .select(['payout_id', 'attempts'])
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
    return lockPayout(tx, row.payout_id);
  });
}

async function claimNew(ctx: AppContext, scope: DueWorkScope): Promise<PayoutRow | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    let q = tx
      .selectFrom('payouts')
      .selectAll()
      .where('status', '=', 'pending')
      .where('kind', 'in', ['payout', 'withdrawal'])
      .where('currency', '=', 'CLP')
      .where('batch_id', 'is', null)
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
    return moved;
  });
}

async function send(ctx: AppContext, payout: PayoutRow): Promise<void> {
  const account = await fintocAccount(ctx, ctx.db, payout.account_id);
  if (account === null || account.sourceAccount === null) return;
  const body = {
    account_id: account.sourceAccount,
    amount: minorAsJsonNumber(BigInt(payout.amount_minor)),
    currency: payout.currency,
    comment: payout.subject.slice(0, fintocLimits.transferCommentLengthMax),
    reference_id: payout.order,
    counterparty: {
      holder_id: payout.accountbank_rut,
      holder_name: payout.accountbank_name,
      account_number: payout.accountbank_num,
      account_type: accountTypes[payout.accountbank_type],
      institution_id: payout.accountbank_sbif,
    },
    metadata: { cobro_payout_id: payout.id, cobro_kind: payout.kind },
  };
  try {
    const transfer = await account.api.createTransfer(body, payout.id);
    await applyTransferResult(ctx, payout.id, String(transfer.id), transferVerdict(transfer));
  } catch (error) {
    const { fintocRefused } = await import('../../platform/processors/fintoc-client.ts');
    if (fintocRefused(error)) {
      const reason = `Fintoc: ${error.message.split('\n').join(' ')}`.slice(
        0,
        fintocLimits.reasonLengthMax,
      );
      await applyTransferResult(ctx, payout.id, null, { kind: 'failed', reason });
      return;
    }
    ctx.logger.warn(
      { err: error, payout: payout.id },
      'Fintoc transfer answer lost: sent again later with the same idempotency key',
    );
  }
}

export async function dispatchFintocPayouts(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  if (ctx.config.mode !== 'production') return 0;
  let processed = 0;
  const limit = Math.min(scope.limit, fintocLimits.dispatchBatchMax);
  while (processed < limit) {
    const payout = (await claimStale(ctx, scope)) ?? (await claimNew(ctx, scope));
    if (payout === undefined) break;
    await send(ctx, payout);
    processed++;
  }
  return processed;
}

/**
 * The wallet's PayoutSenders port, wired as ctx.payoutSenders by src/runtime.ts: a payout whose Fintoc transfer was
 * sent and not yet answered (`sending`, `sent`) is Fintoc's to decide, by its answer or its webhook (decision 645).
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
      : `its Fintoc transfer is ${row.state}: Fintoc's answer or webhook resolves it, and \`cobro fintoc reconcile\` shows what left the account`;
  },
};
