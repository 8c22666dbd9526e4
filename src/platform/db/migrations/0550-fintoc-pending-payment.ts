import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 745: a Fintoc payment the bank has not confirmed (its payment intent `pending`) keeps its session open and
// its sale held, and is asked about at a slower pace and for a bounded time, both counted from when Cobro first saw
// it pending. Null for every other session (and for those before this migration).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE processor_sessions ADD COLUMN pending_since TIMESTAMPTZ');
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE processor_sessions DROP COLUMN pending_since');
}
