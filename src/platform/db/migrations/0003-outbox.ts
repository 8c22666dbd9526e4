import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Callback outbox: a row per callback, written in the transaction that causes it (supplement §5.1).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE notifications (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      url TEXT NOT NULL,
      event_type TEXT NOT NULL,
      payload JSONB NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'delivered', 'failed')),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TIMESTAMPTZ NOT NULL,
      lease_until TIMESTAMPTZ,
      last_error TEXT,
      last_status_code INTEGER,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      delivered_at TIMESTAMPTZ
    );
    CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status IN ('pending', 'delivering');
    CREATE INDEX notifications_account ON notifications (account_id, created_at);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE notifications;\n');
}
