// Reads and row locks of nullifications (migration 0120).
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import './types.ts';

export type NullificationRow = NonNullable<Awaited<ReturnType<typeof findNullification>>>;

export async function findNullification(db: DbOrTx, id: string) {
  return db.selectFrom('nullifications').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function lockNullification(tx: Tx, id: string) {
  return tx.selectFrom('nullifications').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * GET /api/nullification/{id}: a nullification's own id (the callback's `id`), or a transaction id, which names
 * that transaction's latest nullification. Another account's ids find nothing.
 */
export async function findAccountNullification(db: DbOrTx, accountId: string, key: string) {
  return db.selectFrom('nullifications').selectAll()
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('id', '=', key), eb('transaction_id', '=', key)]))
    .orderBy('seq', 'desc')
    .limit(1).executeTakeFirst();
}
