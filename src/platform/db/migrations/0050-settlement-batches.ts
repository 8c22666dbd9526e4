import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Every settlement run records what it settled, one batch per account and currency, and each settled
// transaction names its batch: conciliation (issue 12) lists the batches and checks them against the ledger.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE settlement_batches (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      currency TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      transaction_count INTEGER NOT NULL CHECK (transaction_count > 0),
      gross_minor BIGINT NOT NULL CHECK (gross_minor >= 0),
      fee_minor BIGINT NOT NULL CHECK (fee_minor >= 0),
      net_minor BIGINT NOT NULL CHECK (net_minor = gross_minor - fee_minor)
    );
    CREATE INDEX settlement_batches_account ON settlement_batches (account_id, currency, created_at);
    ALTER TABLE transactions ADD COLUMN settlement_batch_id TEXT REFERENCES settlement_batches (id);
    CREATE INDEX transactions_settlement_batch ON transactions (settlement_batch_id) WHERE settlement_batch_id IS NOT NULL
  `,
  );
}

// Decision 1085: the inverse of the `up`, so a downgrade past this migration leaves the schema the one before it had.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX transactions_settlement_batch;
    ALTER TABLE transactions DROP COLUMN settlement_batch_id;
    DROP TABLE settlement_batches
  `,
  );
}
