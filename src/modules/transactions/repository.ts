import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import './types.ts';

export type TransactionRow = NonNullable<Awaited<ReturnType<typeof findTransactionById>>>;

export async function findTransactionById(db: DbOrTx, id: string) {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** GET /api/transaction/{id} accepts the trx id, the payment_key, the transaction_key or the numeric transaction_id. */
export async function findAccountTransaction(db: DbOrTx, accountId: string, key: string) {
  let q = db.selectFrom('transactions').selectAll().where('account_id', '=', accountId);
  q = /^\d{1,18}$/.test(key)
    ? q.where((eb) => eb.or([eb('transaction_key', '=', key), eb('number', '=', BigInt(key))]))
    : q.where((eb) => eb.or([eb('id', '=', key), eb('payment_key', '=', key)]));
  return q.executeTakeFirst();
}

export async function lockTransaction(tx: Tx, id: string) {
  return tx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}
