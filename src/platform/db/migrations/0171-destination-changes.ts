import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 140: every change to where money goes (a marketplace client's bank account, the account's own bank
// account) is kept in destination_changes and called back to the merchant's account-level notify_url, in the
// change's own transaction.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE accounts ADD COLUMN notify_url TEXT CHECK (notify_url IS NULL OR length(notify_url) BETWEEN 1 AND 600);
    CREATE TABLE destination_changes (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      subject TEXT NOT NULL CHECK (subject IN ('account_bank', 'marketplace_client_bank')),
      subject_id TEXT NOT NULL,
      previous JSONB,
      current JSONB NOT NULL,
      source TEXT NOT NULL CHECK (source IN ('api', 'cli')),
      notification_id TEXT,
      changed_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX destination_changes_account ON destination_changes (account_id, changed_at);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE destination_changes;\nALTER TABLE accounts DROP COLUMN notify_url;');
}
