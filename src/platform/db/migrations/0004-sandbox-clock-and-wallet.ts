import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Per-account sandbox clock offsets (supplement §6.3) and the wallet movement log every module appends to.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE sandbox_clocks (
      account_id TEXT PRIMARY KEY REFERENCES accounts (id),
      offset_ms BIGINT NOT NULL DEFAULT 0 CHECK (offset_ms >= 0),
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE wallet_movements (
      seq BIGSERIAL PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      currency TEXT NOT NULL,
      "order" TEXT NOT NULL,
      subject TEXT NOT NULL,
      income_expense TEXT NOT NULL CHECK (income_expense IN ('income', 'expense')),
      status TEXT NOT NULL DEFAULT 'current' CHECK (status IN ('current', 'reversed')),
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      balance_after_minor BIGINT NOT NULL CHECK (balance_after_minor >= 0),
      origin_liquidation TEXT,
      kind TEXT NOT NULL,
      reference TEXT NOT NULL,
      journal_id TEXT NOT NULL REFERENCES journal_entries (id),
      created_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX wallet_movements_account ON wallet_movements (account_id, currency, seq);
    CREATE INDEX wallet_movements_reference ON wallet_movements (reference);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE wallet_movements;\nDROP TABLE sandbox_clocks;\n');
}
