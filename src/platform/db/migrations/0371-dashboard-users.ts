import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 541: named dashboard users with a role, invited by a one-time link (kept only as its SHA-256) where they
// set a password (scrypt) and may add a TOTP second factor (its secret sealed). A session names its user; a
// session without one was opened with the account's tokens, which an account may turn off once it has users.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE dashboard_users (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      email TEXT NOT NULL UNIQUE,
      role TEXT NOT NULL CHECK (role IN ('viewer', 'developer', 'admin', 'owner')),
      password_hash TEXT,
      totp_secret_enc TEXT,
      invite_hash TEXT UNIQUE,
      invite_expires_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX dashboard_users_account ON dashboard_users (account_id, created_at);
    ALTER TABLE dashboard_sessions ADD COLUMN user_id TEXT REFERENCES dashboard_users (id) ON DELETE CASCADE;
    ALTER TABLE accounts ADD COLUMN dashboard_token_sign_in BOOLEAN NOT NULL DEFAULT true;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE accounts DROP COLUMN dashboard_token_sign_in;
    ALTER TABLE dashboard_sessions DROP COLUMN user_id;
    DROP TABLE dashboard_users;
  `,
  );
}
