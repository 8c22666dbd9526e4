import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Refunds (issue 11, docs/refunds.md): one row per nullification request of a paid transaction. The transaction
// keeps running totals, so the ceiling check under its row lock reads one row: `refunded_minor` (every refund
// registered and not deleted), `refunded_pending_minor` (what refunds took from its still unsettled net, which its
// settlement then no longer moves) and `nullify_status` (the latest request's state, shown by GET /api/transaction).
// `charge_key` keeps the payment attempt's processor key, which a refund names to the processor.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE nullifications (
      id TEXT PRIMARY KEY,
      seq BIGINT GENERATED ALWAYS AS IDENTITY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      transaction_id TEXT NOT NULL REFERENCES transactions (id),
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      currency TEXT NOT NULL,
      subject TEXT NOT NULL,
      type TEXT NOT NULL CHECK (type IN ('total', 'partial')),
      status TEXT NOT NULL,
      fee_back_minor BIGINT NOT NULL CHECK (fee_back_minor >= 0),
      from_pending_minor BIGINT NOT NULL CHECK (from_pending_minor >= 0),
      from_wallet_minor BIGINT NOT NULL CHECK (from_wallet_minor >= 0),
      gateway TEXT NOT NULL,
      payment_type TEXT NOT NULL,
      refund_code TEXT,
      gateway_message TEXT,
      dispatch_due_at TIMESTAMPTZ,
      dispatch_attempts INTEGER NOT NULL DEFAULT 0,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX nullifications_transaction ON nullifications (transaction_id, seq);
    CREATE INDEX nullifications_account ON nullifications (account_id, created_at);
    CREATE INDEX nullifications_dispatch ON nullifications (dispatch_due_at) WHERE dispatch_due_at IS NOT NULL;
    ALTER TABLE transactions ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0 AND refunded_minor <= amount_minor);
    ALTER TABLE transactions ADD COLUMN refunded_pending_minor BIGINT NOT NULL DEFAULT 0 CHECK (refunded_pending_minor >= 0);
    ALTER TABLE transactions ADD COLUMN nullify_status TEXT;
    ALTER TABLE transactions ADD COLUMN charge_key TEXT
  `,
  );
}

// Decision 1085: the inverse of the `up`, so a downgrade past this migration leaves the schema the one before it had.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions DROP COLUMN charge_key;
    ALTER TABLE transactions DROP COLUMN nullify_status;
    ALTER TABLE transactions DROP COLUMN refunded_pending_minor;
    ALTER TABLE transactions DROP COLUMN refunded_minor;
    DROP TABLE nullifications
  `,
  );
}
