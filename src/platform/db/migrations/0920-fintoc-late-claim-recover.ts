import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 1215: the `fintoc-late-claim-recover` due work looks, every beat, for pending sales whose attempt lease
// ran out within the last fintocLimits.lateClaimAskMsMax. Pending sales held by an attempt that ended without paying
// (every abandoned try) accumulate until they expire, some never: this index reads only the window by its lease.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `CREATE INDEX transactions_pending_lease ON transactions (attempt_lease_until)
      WHERE status = 'pending' AND attempt_lease_until IS NOT NULL`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, `DROP INDEX transactions_pending_lease`);
}
