// SQL of the wallet module. Callers pass a transaction when they need the rows locked.
import type { Insertable, Selectable } from 'kysely';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import type { PayoutKind } from './payout-states.ts';
import type { AccountBankAccountTable, PayoutTable } from './types.ts';
import './types.ts';
import './movements.ts';

export type PayoutRow = Selectable<PayoutTable>;
export type BankAccountRow = Selectable<AccountBankAccountTable>;

export async function findPayoutByOrder(
  db: DbOrTx,
  accountId: string,
  kind: PayoutKind,
  order: string,
): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', kind)
    .where('order', '=', order)
    .executeTakeFirst();
}

export async function findPayout(
  db: DbOrTx,
  accountId: string,
  id: string,
): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Locks the payout row so no other transition can run on it until the transaction ends. */
export async function lockPayout(tx: Tx, id: string): Promise<PayoutRow | undefined> {
  return tx.selectFrom('payouts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Inserts unless the account already used the order for this kind; the new row, or undefined when it had. */
export async function insertPayout(
  tx: Tx,
  row: Insertable<PayoutTable>,
): Promise<PayoutRow | undefined> {
  return tx
    .insertInto('payouts')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'kind', 'order']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function markMovementReversed(tx: Tx, id: string): Promise<void> {
  await tx
    .updateTable('wallet_movements')
    .set({ status: 'reversed' })
    .where('id', '=', id)
    .execute();
}

export async function findBankAccount(
  db: DbOrTx,
  accountId: string,
): Promise<BankAccountRow | undefined> {
  return db
    .selectFrom('account_bank_accounts')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function upsertBankAccount(
  db: DbOrTx,
  row: Insertable<AccountBankAccountTable>,
): Promise<void> {
  await db
    .insertInto('account_bank_accounts')
    .values(row)
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        currency: row.currency,
        sbif: row.sbif,
        type: row.type,
        num: row.num,
        rut: row.rut,
        holder_name: row.holder_name,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Where a movement of the account sits (its currency's page and its seq), to read it in the summary's shape. */
export async function movementPlace(
  db: DbOrTx,
  accountId: string,
  id: string,
): Promise<{ currency: string; seq: bigint | string } | undefined> {
  return db
    .selectFrom('wallet_movements')
    .select(['currency', 'seq'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}
