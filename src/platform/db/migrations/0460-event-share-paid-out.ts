import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 650: whether an event sale's part has left its beneficiary's payable is recorded on the part, by the
// payout that swept it, instead of being guessed from the beneficiary's last payout time against the sale's
// settlement time (a sale settling while a payout ran was dated before it, and its part counted as paid out).
// Existing parts keep what the old rule said of them.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE event_sale_shares ADD COLUMN paid_out_at TIMESTAMPTZ;
    UPDATE event_sale_shares s SET paid_out_at = b.paid_at
      FROM event_beneficiaries b, event_sales es
      WHERE b.id = s.beneficiary_id AND es.transaction_id = s.transaction_id
        AND es.settled_at IS NOT NULL AND b.paid_at IS NOT NULL AND b.paid_at >= es.settled_at
  `,
  );
}

// Decision 1085: the inverse of the `up`, so a downgrade past this migration leaves the schema the one before it had.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE event_sale_shares DROP COLUMN paid_out_at');
}
