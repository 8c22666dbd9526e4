// Records a mall's outcome in one database transaction (decision 122): every store line's transaction moves to
// success (its gross, its own fee, the split its extension records, its own urlnotify callback: transactions'
// recordSuccess) or to rejected, the mall row follows, and the mall's urlnotify gets the whole result.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { lockTransaction, type TransactionRow } from '../transactions/repository.ts';
import {
  recordRejection,
  recordSuccess,
  type Rejection,
} from '../transactions/transaction-result.ts';
import type { Approval } from '../transactions/success-statement.ts';
import type { MallRow } from './repository.ts';
import { linesOf } from './repository.ts';
import './types.ts';

const mallResultEvent = 'mall.result';

/**
 * The store transactions of the mall, locked: business rows before any ledger row (decision 060), in id order so
 * that two payments never wait on each other's rows in opposite orders. Returned in the order to record them:
 * by store account, so the ledger accounts they post to are also taken in one order.
 */
async function lockLines(tx: Tx, mallId: string): Promise<TransactionRow[]> {
  const lines = await linesOf(tx, mallId);
  const rows: TransactionRow[] = [];
  for (const id of lines.map((l) => l.transaction_id).sort()) {
    const row = await lockTransaction(tx, id);
    if (row === undefined) throw new Error(`mall ${mallId} line transaction ${id} is gone`);
    rows.push(row);
  }
  return rows.sort((a, b) =>
    a.account_id < b.account_id ? -1 : a.account_id > b.account_id ? 1 : a.id < b.id ? -1 : 1,
  );
}

async function notifyMall(
  tx: Tx,
  mall: MallRow,
  status: 'success' | 'failed',
  at: Date,
): Promise<void> {
  if (mall.urlnotify === null) return;
  const lines = await linesOf(tx, mall.id);
  const keys = new Map(
    (
      await tx
        .selectFrom('transactions')
        .select(['id', 'transaction_key', 'status'])
        .where(
          'id',
          'in',
          lines.map((l) => l.transaction_id),
        )
        .execute()
    ).map((r) => [r.id, r]),
  );
  await enqueueCallback(tx, {
    accountId: mall.account_id,
    url: mall.urlnotify,
    eventType: mallResultEvent,
    payload: {
      id: mall.id,
      order: mall.order,
      status,
      amount: String(mall.amount_minor),
      currency: mall.currency,
      verification_key: mall.verification_key,
      individual_orders: lines.map((l) => ({
        merchant: l.store_name,
        amount: String(l.amount_minor),
        individual_order: l.individual_order,
        transaction_id: l.transaction_id,
        identificador: keys.get(l.transaction_id)?.transaction_key ?? '',
        status: keys.get(l.transaction_id)?.status === 'success' ? 'success' : 'failed',
      })),
    },
    at,
  });
}

export async function recordMallSuccess(
  ctx: AppContext,
  tx: Tx,
  mall: MallRow,
  approval: Approval,
  at: Date,
): Promise<void> {
  // Each store's sale is paid on its store's clock (decision 920): a sandbox clock of its own never makes it end
  // before it began, nor settle on the mall owner's day. `at`, the owner's now, dates the mall and its callback.
  for (const row of await lockLines(tx, mall.id))
    await recordSuccess(ctx, tx, row, approval, await ctx.accountClock.now(row.account_id, tx));
  await tx
    .updateTable('malls')
    .set({
      status: 'success',
      updated_at: at,
      ended_at: at,
      attempt_id: null,
      attempt_lease_until: null,
      paid_payment: approval.paidPayment,
      media: approval.media,
      authorization_code: approval.authorizationCode,
      card_last4: approval.cardLast4,
      card_type: approval.cardType,
      gateway_message: 'successful transaction',
    })
    .where('id', '=', mall.id)
    .execute();
  await notifyMall(tx, mall, 'success', at);
}

export async function recordMallRejection(
  ctx: AppContext,
  tx: Tx,
  mall: MallRow,
  rejection: Rejection,
  at: Date,
): Promise<void> {
  for (const row of await lockLines(tx, mall.id))
    await recordRejection(tx, row, rejection, await ctx.accountClock.now(row.account_id, tx));
  await tx
    .updateTable('malls')
    .set({
      status: 'rejected',
      updated_at: at,
      attempt_id: null,
      attempt_lease_until: null,
      ...(rejection.paidPayment !== null
        ? { ended_at: at, paid_payment: rejection.paidPayment, media: rejection.media }
        : {}),
      card_last4: rejection.cardLast4,
      gateway_message: rejection.gatewayMessage,
    })
    .where('id', '=', mall.id)
    .execute();
  await notifyMall(tx, mall, 'failed', at);
}
