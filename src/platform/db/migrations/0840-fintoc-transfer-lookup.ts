import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 992: a transfer result whose amount or currency is not the payout's moves nothing; the transfer's row keeps
// what Fintoc reported (`mismatch`) and `cobro fintoc reconcile` reports it as a `transfer_mismatch` finding. A
// transfer Fintoc answered `pending` is looked up once it has waited: the due work finds `sent` rows by `updated_at`.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE fintoc_transfers ADD COLUMN mismatch TEXT;
    CREATE INDEX fintoc_transfers_sent ON fintoc_transfers (updated_at) WHERE state = 'sent';
    ALTER TABLE fintoc_movement_findings DROP CONSTRAINT fintoc_movement_findings_kind_check;
    ALTER TABLE fintoc_movement_findings ADD CONSTRAINT fintoc_movement_findings_kind_check
      CHECK (kind IN ('unmatched_movement', 'missing_movement', 'unresolved_transfer', 'unresolved_refund',
                      'transfer_mismatch'));
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DELETE FROM fintoc_movement_findings WHERE kind = 'transfer_mismatch';
    ALTER TABLE fintoc_movement_findings DROP CONSTRAINT fintoc_movement_findings_kind_check;
    ALTER TABLE fintoc_movement_findings ADD CONSTRAINT fintoc_movement_findings_kind_check
      CHECK (kind IN ('unmatched_movement', 'missing_movement', 'unresolved_transfer', 'unresolved_refund'));
    DROP INDEX fintoc_transfers_sent;
    ALTER TABLE fintoc_transfers DROP COLUMN mismatch;
  `,
  );
}
