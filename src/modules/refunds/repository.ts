// Reads and row locks of nullifications (migration 0120).
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import type { NullificationStatus } from './states.ts';
import './types.ts';

export type NullificationRow = NonNullable<Awaited<ReturnType<typeof findNullification>>>;

export async function findNullification(db: DbOrTx, id: string) {
  return db.selectFrom('nullifications').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function lockNullification(tx: Tx, id: string) {
  return tx
    .selectFrom('nullifications')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * GET /api/nullification/{id}: a nullification's own id (the callback's `id`), or a transaction id, which names
 * that transaction's latest nullification. Another account's ids find nothing.
 */
export async function findAccountNullification(db: DbOrTx, accountId: string, key: string) {
  return db
    .selectFrom('nullifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('id', '=', key), eb('transaction_id', '=', key)]))
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Shows a refund's new state as the transaction's `nullify.status`, unless a later refund of it exists. */
export async function showOnTransaction(
  tx: Tx,
  row: NullificationRow,
  status: NullificationStatus,
): Promise<void> {
  await tx
    .updateTable('transactions')
    .set({ nullify_status: status })
    .where('id', '=', row.transaction_id)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('nullifications as later')
            .select('later.id')
            .where('later.transaction_id', '=', row.transaction_id)
            .where('later.seq', '>', row.seq),
        ),
      ),
    )
    .execute();
}

/**
 * What the sale's refunds that stand (all but those the processor refused) refunded and gave back of the fee, read
 * under the sale's row lock, which every refund and every refusal of it takes (decision 975).
 */
export async function standingRefunds(
  tx: Tx,
  transactionId: string,
): Promise<{ readonly refundedMinor: bigint; readonly feeBackMinor: bigint }> {
  const row = await tx
    .selectFrom('nullifications')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string>('amount_minor'), eb.val('0')).as('refunded'),
      eb.fn.coalesce(eb.fn.sum<string>('fee_back_minor'), eb.val('0')).as('fee_back'),
    ])
    .where('transaction_id', '=', transactionId)
    .where('status', '<>', 'reverse_deleted')
    .executeTakeFirstOrThrow();
  return { refundedMinor: BigInt(row.refunded), feeBackMinor: BigInt(row.fee_back) };
}
