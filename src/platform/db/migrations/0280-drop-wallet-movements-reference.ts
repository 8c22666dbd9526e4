import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 330: no query reads wallet movements by reference. A movement is found by its id, or listed by account,
// currency and seq (wallet_movements_account); the payout a movement names is read from payouts by its id. Every
// movement (two a payout that is paid, three a refused one) still wrote an entry into this index.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP INDEX wallet_movements_reference');
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'CREATE INDEX wallet_movements_reference ON wallet_movements (reference)');
}
