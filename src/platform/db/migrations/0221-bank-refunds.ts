import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Refunds of bank-transfer and other non-card payments (issue 11 point 2, decision 112): the processor cannot give
// the money back, so the refund waits for the payer's bank details and goes out as a payout of kind `refund`,
// through the same bank channel as payouts (sandbox clock, or the production payroll file). `channel` says which
// way a refund goes back; `payout_id` names its latest bank payout.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE payouts DROP CONSTRAINT payouts_kind_check;
    ALTER TABLE payouts ADD CONSTRAINT payouts_kind_check CHECK (kind IN ('payout', 'withdrawal', 'refund'));
    ALTER TABLE nullifications ADD COLUMN channel TEXT NOT NULL DEFAULT 'processor' CHECK (channel IN ('processor', 'bank'));
    ALTER TABLE nullifications ADD COLUMN payout_id TEXT REFERENCES payouts (id);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE nullifications DROP COLUMN payout_id;
    ALTER TABLE nullifications DROP COLUMN channel;
    ALTER TABLE payouts DROP CONSTRAINT payouts_kind_check;
    ALTER TABLE payouts ADD CONSTRAINT payouts_kind_check CHECK (kind IN ('payout', 'withdrawal'));
  `,
  );
}
