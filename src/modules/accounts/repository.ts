import type { DbOrTx } from '../../platform/db/types.ts';

export async function findAccountRowById(db: DbOrTx, id: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findAccountRowByTokenHash(db: DbOrTx, hash: string) {
  return db
    .selectFrom('accounts')
    .selectAll()
    .where('public_token_hash', '=', hash)
    .where('status', '=', 'active')
    .executeTakeFirst();
}
