// SQL of the mall module: the mall row and its lines.
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import './types.ts';

export type MallRow = NonNullable<Awaited<ReturnType<typeof findMall>>>;

export async function findMall(db: DbOrTx, id: string) {
  return db.selectFrom('malls').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function lockMall(tx: Tx, id: string) {
  return tx.selectFrom('malls').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function linesOf(db: DbOrTx, mallId: string) {
  return db
    .selectFrom('mall_lines')
    .selectAll()
    .where('mall_id', '=', mallId)
    .orderBy('position')
    .execute();
}
