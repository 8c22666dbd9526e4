import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// The settlement's due scan (settlement.ts: settled_at IS NULL AND settle_due_at <= account now, ORDER BY
// settle_due_at, LIMIT 1) lost its index with migration 0251, whose predicate it never implied, and ran on
// transactions_status, reading every sale ever paid. This index holds only what can still come due: a row enters
// when its payment succeeds (a create writes nothing into it, settle_due_at is null until then) and leaves when it
// settles. Its predicate is implied by the scan's own conditions (`<=` is strict, so it implies IS NOT NULL),
// whatever statuses the scan asks for.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'CREATE INDEX transactions_settle_due ON transactions (settle_due_at) WHERE settled_at IS NULL AND settle_due_at IS NOT NULL',
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP INDEX transactions_settle_due');
}
