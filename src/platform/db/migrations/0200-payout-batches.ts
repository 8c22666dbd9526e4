import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Production payouts leave Cobro as bank payroll files (`cobro payouts export`, docs/payouts-production.md): a
// batch names the bank whose format it was written for, and each payout names the one batch it went out in, so
// a payout is exported once and its file can be written again from the database.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE payout_batches (
      id TEXT PRIMARY KEY,
      bank_sbif TEXT NOT NULL,
      format TEXT NOT NULL CHECK (format IN ('csv')),
      payout_count INTEGER NOT NULL CHECK (payout_count > 0),
      created_at TIMESTAMPTZ NOT NULL
    );
    ALTER TABLE payouts ADD COLUMN batch_id TEXT REFERENCES payout_batches (id);
    CREATE INDEX payouts_batch ON payouts (batch_id) WHERE batch_id IS NOT NULL;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP INDEX payouts_batch;\nALTER TABLE payouts DROP COLUMN batch_id;\nDROP TABLE payout_batches;\n',
  );
}
