import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 785: a refund keeps when it was first dispatched, on the service clock, so a retry after a lost answer
// looks it up at Fintoc from then and resends it only within fintocLimits.refundResendWindowMs of it. A refund already
// dispatched takes its registration time, less its account's sandbox offset (production has none).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `ALTER TABLE nullifications ADD COLUMN dispatch_first_at TIMESTAMPTZ NULL;
    UPDATE nullifications n SET dispatch_first_at = n.created_at - COALESCE(
        (SELECT c.offset_ms FROM sandbox_clocks c WHERE c.account_id = n.account_id), 0) * INTERVAL '1 millisecond'
      WHERE n.dispatch_attempts > 0;`,
  );
}

// Decision 1085: the inverse of the `up`, so a downgrade past this migration leaves the schema the one before it had.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE nullifications DROP COLUMN dispatch_first_at');
}
