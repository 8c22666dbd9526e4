import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Merchant dashboard sessions (docs/dashboard.md): the browser holds a random id in a signed cookie, the database
// only its SHA-256, so a copy of this table opens no session. `token_hash` is the account's public token hash at
// sign-in: rotating the tokens ends every session signed in with the old ones.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE dashboard_sessions (
      id_hash TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      token_hash TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      expires_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE dashboard_sessions;\n');
}
