import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// A production account's own acquirer (issue 15): Webpay Plus keys per account, the API key sealed under
// COBRO_SECRET_KEY like the other secrets; and each payment that left for the acquirer's page, by its token, so
// the return, a lost commit's status check (decision 150) and a refund find it. A payment attempt may now end
// `abandoned` (the payer left Webpay's page: TBK_TOKEN).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE account_processors (
      account_id TEXT PRIMARY KEY REFERENCES accounts (id),
      processor TEXT NOT NULL CHECK (processor IN ('webpay_plus')),
      commerce_code TEXT NOT NULL,
      api_key_enc TEXT NOT NULL,
      environment TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE processor_sessions (
      attempt_id TEXT PRIMARY KEY,
      transaction_id TEXT NOT NULL REFERENCES transactions (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      processor TEXT NOT NULL,
      token TEXT NOT NULL UNIQUE,
      state TEXT NOT NULL CHECK (state IN ('redirected', 'committing', 'approved', 'declined', 'abandoned')),
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX processor_sessions_committing ON processor_sessions (updated_at) WHERE state = 'committing';
    CREATE INDEX processor_sessions_transaction ON processor_sessions (transaction_id);
    ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_outcome_check;
    ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_outcome_check CHECK (outcome IN ('approved', 'declined', 'abandoned'))
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  // One statement a line: runSql splits there, and PGlite takes one statement at a time (decision 1021). 0180's
  // check comes back too (decision 1085); the release before 0181 never wrote an abandoned attempt, so those go.
  await runSql(
    db,
    `
    DROP TABLE processor_sessions;
    DROP TABLE account_processors;
    DELETE FROM payment_attempts WHERE outcome = 'abandoned';
    ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_outcome_check;
    ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_outcome_check CHECK (outcome IN ('approved', 'declined'))
  `,
  );
}
