import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 750: a Fintoc transfer whose answer was lost, that Fintoc's list does not show and that may no longer be
// sent again (a resend refused, or past the resend limits) is `unresolved`: its payout stays `processing`, its money
// held, for the operator; `cobro fintoc reconcile` reports it as an `unresolved_transfer` finding.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE fintoc_transfers DROP CONSTRAINT fintoc_transfers_state_check;
    ALTER TABLE fintoc_transfers ADD CONSTRAINT fintoc_transfers_state_check
      CHECK (state IN ('sending', 'sent', 'succeeded', 'failed', 'unresolved'));
    ALTER TABLE fintoc_movement_findings DROP CONSTRAINT fintoc_movement_findings_kind_check;
    ALTER TABLE fintoc_movement_findings ADD CONSTRAINT fintoc_movement_findings_kind_check
      CHECK (kind IN ('unmatched_movement', 'missing_movement', 'unresolved_transfer'));
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DELETE FROM fintoc_movement_findings WHERE kind = 'unresolved_transfer';
    ALTER TABLE fintoc_movement_findings DROP CONSTRAINT fintoc_movement_findings_kind_check;
    ALTER TABLE fintoc_movement_findings ADD CONSTRAINT fintoc_movement_findings_kind_check
      CHECK (kind IN ('unmatched_movement', 'missing_movement'));
    UPDATE fintoc_transfers SET state = 'sent' WHERE state = 'unresolved';
    ALTER TABLE fintoc_transfers DROP CONSTRAINT fintoc_transfers_state_check;
    ALTER TABLE fintoc_transfers ADD CONSTRAINT fintoc_transfers_state_check
      CHECK (state IN ('sending', 'sent', 'succeeded', 'failed'));
  `,
  );
}
