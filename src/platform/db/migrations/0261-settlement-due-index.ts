import type { Kysely } from 'kysely';
import { dropInvalidIndex } from '../invalid-index.ts';
import { runSql } from '../run-sql.ts';

// The settlement's due scan (settlement.ts: settled_at IS NULL AND settle_due_at <= account now, ORDER BY
// settle_due_at, LIMIT 1) lost its index with migration 0251, whose predicate it never implied, and ran on
// transactions_status, reading every sale ever paid. This index holds only what can still come due: a row enters
// when its payment succeeds (a create writes nothing into it, settle_due_at is null until then) and leaves when it
// settles. Its predicate is implied by the scan's own conditions (`<=` is strict, so it implies IS NOT NULL),
// whatever statuses the scan asks for.
//
// Built CONCURRENTLY, outside a transaction (decision 1020): a plain CREATE INDEX blocked every payment's write to
// transactions while it read the table whole. A database that ran the earlier plain build has the same index; a
// build cut short leaves it INVALID, dropped and built again on the next run.
export const transaction = false;

export async function up(db: Kysely<any>): Promise<void> {
  await dropInvalidIndex(db, 'transactions_settle_due');
  await runSql(
    db,
    'CREATE INDEX CONCURRENTLY IF NOT EXISTS transactions_settle_due ON transactions (settle_due_at) WHERE settled_at IS NULL AND settle_due_at IS NOT NULL',
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP INDEX transactions_settle_due');
}
