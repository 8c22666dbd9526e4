import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Issue 34: an account's Fintoc keys (secret key, webhook secret and the optional JWS private key for transfers,
// each sealed under COBRO_SECRET_KEY); one row per payout sent as a Fintoc transfer, so a lost answer is retried
// with the same idempotency key and a webhook finds its payout; each webhook event once (a replay changes
// nothing); the account movements reconciliation found without a match (decision 512); and the method a payer
// chose for a session (4, 19 or 26: one Fintoc flow serves them all).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE fintoc_settings (
      account_id TEXT PRIMARY KEY REFERENCES accounts (id),
      secret_key_enc TEXT NOT NULL,
      webhook_secret_enc TEXT NOT NULL,
      jws_key_enc TEXT,
      source_account TEXT,
      environment TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE fintoc_transfers (
      payout_id TEXT PRIMARY KEY REFERENCES payouts (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      transfer_id TEXT UNIQUE,
      state TEXT NOT NULL CHECK (state IN ('sending', 'sent', 'succeeded', 'failed')),
      attempts INTEGER NOT NULL DEFAULT 0,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX fintoc_transfers_sending ON fintoc_transfers (updated_at) WHERE state = 'sending';
    CREATE TABLE fintoc_events (
      event_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      type TEXT NOT NULL,
      received_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE fintoc_movement_findings (
      account_id TEXT NOT NULL REFERENCES accounts (id),
      subject TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('unmatched_movement', 'missing_movement')),
      amount_minor BIGINT NOT NULL,
      currency TEXT NOT NULL,
      detail TEXT NOT NULL,
      found_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (account_id, subject, kind)
    );
    ALTER TABLE processor_sessions ADD COLUMN payment INTEGER
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  // One statement a line: runSql splits there, and PGlite takes one statement at a time (decision 1021).
  await runSql(
    db,
    `
    ALTER TABLE processor_sessions DROP COLUMN payment;
    DROP TABLE fintoc_movement_findings;
    DROP TABLE fintoc_events;
    DROP TABLE fintoc_transfers;
    DROP TABLE fintoc_settings
  `,
  );
}
