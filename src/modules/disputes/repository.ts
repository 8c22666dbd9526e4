// The disputes' reads: one by id within its account, a page of an account's, and the sum a sale's open ones hold.
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import { openStatuses } from './states.ts';
import './types.ts';

export type DisputeRow = NonNullable<Awaited<ReturnType<typeof findDispute>>>;

export async function findDispute(db: DbOrTx, accountId: string, id: string) {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The dispute under lock, by id alone (the operator's and the sandbox's resolution name no account). */
export async function lockDispute(tx: Tx, id: string) {
  return tx.selectFrom('disputes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The dispute the operator opened before with this key (decision 710), if any. */
export async function findKeyedDispute(tx: Tx, accountId: string, operatorKey: string) {
  return tx
    .selectFrom('disputes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('operator_key', '=', operatorKey)
    .executeTakeFirst();
}

export async function listDisputes(
  db: DbOrTx,
  accountId: string,
  page: { readonly offset: number; readonly limit: number },
) {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
}

export async function countDisputes(db: DbOrTx, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('disputes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What a sale's open disputes hold (read under the sale's row lock, which every dispute of it takes first). */
export async function openDisputedMinor(db: DbOrTx, transactionId: string): Promise<bigint> {
  const row = await db
    .selectFrom('disputes')
    .select((eb) => eb.fn.sum<string | null>('amount_minor').as('total'))
    .where('transaction_id', '=', transactionId)
    .where('status', 'in', openStatuses)
    .executeTakeFirstOrThrow();
  return BigInt(row.total ?? 0);
}
