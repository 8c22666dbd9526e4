// Every state change of a refund goes through here (decision 111): the state table allows it, the row and the
// transaction's `nullify.status` change, and the `nullification.result` callback (reference §3.3's Spanish payload)
// goes into the outbox, all in the caller's database transaction, so a state is never seen without its callback
// nor called back without being committed.
import type { AppContext } from '../../platform/context.ts';
import type { Updateable } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { formatDayFirstTimestamp } from '../../platform/time/time-format.ts';
import { showOnTransaction, type NullificationRow } from './repository.ts';
import { assertTransition, type NullificationStatus } from './states.ts';
import type { NullificationTable } from './types.ts';
import { jsonInteger } from './views.ts';

export const nullificationEvent = 'nullification.result';

/** Calls the account back with a refund's state as it is in `row`, when the account set a nullification URL. */
export async function notifyNullification(
  ctx: AppContext,
  tx: Tx,
  row: NullificationRow,
): Promise<void> {
  const account = await tx
    .selectFrom('accounts')
    .select('nullification_url')
    .where('id', '=', row.account_id)
    .executeTakeFirst();
  const url = account?.nullification_url ?? null;
  if (url === null) return;
  const payment = await tx
    .selectFrom('transactions')
    .select('order')
    .where('id', '=', row.transaction_id)
    .executeTakeFirstOrThrow();
  await enqueueCallback(tx, {
    accountId: row.account_id,
    url,
    eventType: nullificationEvent,
    payload: {
      // The reference's payload carries the sale's id in both `id` and `id_transaction`, and its SDK's
      // verifyCallback refuses a callback where they differ (supplement "Later decisions" 1; decision 440).
      id: row.transaction_id,
      id_transaction: row.transaction_id,
      ordencompra: payment.order,
      fecha: formatDayFirstTimestamp(row.updated_at, ctx.config.timeZone),
      monto: jsonInteger(BigInt(row.amount_minor)),
      status: row.status,
      id_nullification: row.id,
    },
    // The account's time (docs/callbacks.md: one clock for all of a callback's times); due at once, as the claim
    // compares due times with the account's clock too.
    at: await ctx.accountClock.now(row.account_id, tx),
  });
}

export type NullificationChanges = Partial<
  Pick<
    Updateable<NullificationTable>,
    'dispatch_due_at' | 'refund_code' | 'gateway_message' | 'from_wallet_minor' | 'payout_id'
  >
>;

/** Moves a refund whose row lock the caller holds to `to` at `at` (account time), with the columns that change with it. */
export async function moveNullification(
  ctx: AppContext,
  tx: Tx,
  row: NullificationRow,
  to: NullificationStatus,
  at: Date,
  changes: NullificationChanges = {},
): Promise<NullificationRow> {
  assertTransition(row.status, to);
  const moved = await tx
    .updateTable('nullifications')
    .set({ ...changes, status: to, updated_at: at })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .returningAll()
    .executeTakeFirst();
  if (moved === undefined) throw new Error(`nullification ${row.id} changed under a held lock`);
  await showOnTransaction(tx, moved, to);
  await notifyNullification(ctx, tx, moved);
  return moved;
}
