import type { Kysely } from 'kysely';
import { dropInvalidIndex } from '../invalid-index.ts';
import { runSql } from '../run-sql.ts';

// Decision 1215: the `fintoc-late-claim-recover` due work looks, every beat, for pending sales whose attempt lease
// ran out within the last fintocLimits.lateClaimAskMsMax. Pending sales held by an attempt that ended without paying
// (every abandoned try) accumulate until they expire, some never: this index reads only the window by its lease.
//
// Built CONCURRENTLY, outside a transaction, as 0850 (decision 1020): a plain CREATE INDEX on transactions would
// block every payment's write while it read the table whole. A build cut short leaves its index INVALID: dropped and
// built again on the next run.
export const transaction = false;

export async function up(db: Kysely<any>): Promise<void> {
  await dropInvalidIndex(db, 'transactions_pending_lease');
  await runSql(
    db,
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS transactions_pending_lease ON transactions (attempt_lease_until)
      WHERE status = 'pending' AND attempt_lease_until IS NOT NULL`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP INDEX transactions_pending_lease`);
}
