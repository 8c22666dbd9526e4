import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 250: no query can use transactions_settlement_due. Its predicate (status = 'success' AND settled_at IS
// NULL) is not implied by the settlement's due scan, the only query on settle_due_at, which has asked for status IN
// ('success', 'refunded partial', 'refunded') since refunds (migration 0120): PostgreSQL plans that scan on
// transactions_status. Every payment's success still wrote an entry into it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP INDEX transactions_settlement_due');
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `CREATE INDEX transactions_settlement_due ON transactions (settle_due_at) WHERE status = 'success' AND settled_at IS NULL`,
  );
}
