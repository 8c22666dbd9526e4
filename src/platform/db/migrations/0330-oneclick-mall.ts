import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Stored-card charges in production through Transbank's Oneclick Mall (issue 33): an account's keys (the API key
// sealed under COBRO_SECRET_KEY), each inscription Cobro started (by Transbank's token, so the payer's return
// finds its enrolment link) and each authorize sent, recorded before the call so that a lost answer is decided by
// Transbank's status on the retry and never charged twice (decision 500).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE account_oneclick (
      account_id TEXT PRIMARY KEY REFERENCES accounts (id),
      commerce_code TEXT NOT NULL,
      child_commerce_code TEXT NOT NULL,
      api_key_enc TEXT NOT NULL,
      environment TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE oneclick_inscriptions (
      token TEXT PRIMARY KEY,
      enrolment_token TEXT NOT NULL REFERENCES su_enrolments (token),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      username TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('started', 'finished', 'failed')),
      created_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX oneclick_inscriptions_enrolment ON oneclick_inscriptions (enrolment_token);
    CREATE TABLE oneclick_charges (
      idempotency_key TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      buy_order TEXT NOT NULL UNIQUE,
      child_buy_order TEXT NOT NULL,
      child_commerce_code TEXT NOT NULL,
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      state TEXT NOT NULL CHECK (state IN ('sent', 'approved', 'declined')),
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    )
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  // One statement a line: runSql splits there, and PGlite takes one statement at a time (decision 1021).
  await runSql(
    db,
    `
    DROP TABLE oneclick_charges;
    DROP TABLE oneclick_inscriptions;
    DROP TABLE account_oneclick
  `,
  );
}
