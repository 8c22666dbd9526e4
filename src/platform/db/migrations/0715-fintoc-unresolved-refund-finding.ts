import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 850: `cobro fintoc reconcile` reports a refund of a Fintoc sale left unresolved (decision 785) as an
// `unresolved_refund` finding, beside decision 750's `unresolved_transfer`.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE fintoc_movement_findings DROP CONSTRAINT fintoc_movement_findings_kind_check;
    ALTER TABLE fintoc_movement_findings ADD CONSTRAINT fintoc_movement_findings_kind_check
      CHECK (kind IN ('unmatched_movement', 'missing_movement', 'unresolved_transfer', 'unresolved_refund'));
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DELETE FROM fintoc_movement_findings WHERE kind = 'unresolved_refund';
    ALTER TABLE fintoc_movement_findings DROP CONSTRAINT fintoc_movement_findings_kind_check;
    ALTER TABLE fintoc_movement_findings ADD CONSTRAINT fintoc_movement_findings_kind_check
      CHECK (kind IN ('unmatched_movement', 'missing_movement', 'unresolved_transfer'));
  `,
  );
}
