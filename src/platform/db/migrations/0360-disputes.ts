import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Issue 36 (decision 530): chargebacks. A dispute names one paid sale and part or all of what is left of it after
// refunds; its money is held in the merchant's `dispute_held` ledger account until the acquirer decides. The
// columns from_wallet_minor and debt_minor record where the held money came from (the available wallet, and the
// rest as the merchant's debt to the service), so a won dispute gives each back where it came from.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE disputes (
      id TEXT PRIMARY KEY,
      seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      transaction_id TEXT NOT NULL REFERENCES transactions (id),
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      currency TEXT NOT NULL,
      reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 200),
      status TEXT NOT NULL CHECK (status IN ('needs_response', 'under_review', 'won', 'lost', 'accepted')),
      from_wallet_minor BIGINT NOT NULL CHECK (from_wallet_minor >= 0),
      debt_minor BIGINT NOT NULL CHECK (debt_minor >= 0),
      evidence_text TEXT,
      evidence_urls JSONB NOT NULL DEFAULT '[]',
      respond_by TIMESTAMPTZ NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      resolved_at TIMESTAMPTZ,
      CHECK (from_wallet_minor + debt_minor = amount_minor)
    );
    CREATE INDEX disputes_account ON disputes (account_id, created_at DESC, seq);
    CREATE INDEX disputes_transaction ON disputes (transaction_id);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE disputes;');
}
