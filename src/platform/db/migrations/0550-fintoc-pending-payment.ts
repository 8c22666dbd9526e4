import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 745: a Fintoc payment the bank has not confirmed (its payment intent `pending`) keeps its session open and
// its sale held, and is asked about at a slower pace and for a bounded time, both counted from when Cobro first saw
// it pending. Null for every other session (and for those before this migration). Fintoc's refund.* webhook names a
// refund Cobro did not tag (one made before this decision) by Fintoc's id, kept as its refund_code: an index for it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `ALTER TABLE processor_sessions ADD COLUMN pending_since TIMESTAMPTZ;
    CREATE INDEX nullifications_refund_code ON nullifications (refund_code) WHERE refund_code IS NOT NULL`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  // One statement a line: runSql splits there, and PGlite takes one statement at a time (decision 1021).
  await runSql(
    db,
    `
    DROP INDEX nullifications_refund_code;
    ALTER TABLE processor_sessions DROP COLUMN pending_since
  `,
  );
}
