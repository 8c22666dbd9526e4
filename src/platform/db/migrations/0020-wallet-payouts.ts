import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Payouts and withdrawals (seed "Wallet"), the merchant's own bank account for withdrawals, and stored
// Idempotency-Key answers (supplement §4.4, §4.5).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE account_bank_accounts (
      account_id TEXT PRIMARY KEY REFERENCES accounts (id),
      currency TEXT NOT NULL,
      sbif TEXT NOT NULL,
      type TEXT NOT NULL CHECK (type IN ('1', '2', '3')),
      num TEXT NOT NULL,
      rut TEXT NOT NULL,
      holder_name TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE payouts (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      kind TEXT NOT NULL CHECK (kind IN ('payout', 'withdrawal')),
      "order" TEXT NOT NULL,
      order_ext TEXT,
      request_hash TEXT NOT NULL,
      currency TEXT NOT NULL,
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      email TEXT NOT NULL,
      phone TEXT NOT NULL,
      subject TEXT NOT NULL,
      accountbank_name TEXT NOT NULL,
      accountbank_rut TEXT NOT NULL,
      accountbank_sbif TEXT NOT NULL,
      accountbank_type TEXT NOT NULL CHECK (accountbank_type IN ('1', '2', '3')),
      accountbank_num TEXT NOT NULL,
      url_notify TEXT,
      additional_parameters TEXT,
      status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'success', 'banking_error', 'fraud_prevention')),
      reason_rejection TEXT NOT NULL DEFAULT '',
      movement_id TEXT,
      due_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      UNIQUE (account_id, kind, "order")
    );
    CREATE INDEX payouts_due ON payouts (due_at) WHERE due_at IS NOT NULL;
    CREATE TABLE idempotency_keys (
      account_id TEXT NOT NULL REFERENCES accounts (id),
      idem_key TEXT NOT NULL,
      method TEXT NOT NULL,
      path TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
      status_code INTEGER,
      content_type TEXT,
      body TEXT,
      locked_until TIMESTAMPTZ NOT NULL,
      expires_at TIMESTAMPTZ NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (account_id, idem_key)
    );
    CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP TABLE idempotency_keys;\nDROP TABLE payouts;\nDROP TABLE account_bank_accounts;\n',
  );
}
