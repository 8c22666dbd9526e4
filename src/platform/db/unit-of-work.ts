// One unit of work for money: a block of statements that commits whole or not at all. Called with the database,
// it opens a transaction; called with a transaction already open (a command run by the command runner, which
// keeps the Idempotency-Key in the same commit), it joins it under a savepoint, so a block that refuses and
// throws still rolls back only its own writes and the caller's outer transaction goes on.
import { sql } from 'kysely';
import type { Db, Tx } from './types.ts';

let savepointSeq = 0;

export async function inTransaction<T>(db: Db | Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return db.transaction().execute(work);
  const tx = db as Tx;
  const name = sql.raw(`uow_${++savepointSeq}`);
  await sql`SAVEPOINT ${name}`.execute(tx);
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    await sql`ROLLBACK TO SAVEPOINT ${name}`.execute(tx);
    await sql`RELEASE SAVEPOINT ${name}`.execute(tx);
    throw error;
  }
  await sql`RELEASE SAVEPOINT ${name}`.execute(tx);
  return result;
}
