import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Delivery bookkeeping for the callback outbox (supplement §5.3): who holds a row's lease, where the current retry
// schedule started (a manual resend starts a new one), the exact body text, and one log row per attempt.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE notifications ADD COLUMN lease_token TEXT;
    ALTER TABLE notifications ADD COLUMN schedule_start_attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE notifications ADD COLUMN body TEXT;
    CREATE TABLE notification_attempts (
      notification_id TEXT NOT NULL REFERENCES notifications (id),
      attempt_no INTEGER NOT NULL,
      lease_token TEXT NOT NULL,
      started_at TIMESTAMPTZ NOT NULL,
      finished_at TIMESTAMPTZ,
      outcome TEXT CHECK (outcome IN ('delivered', 'retry', 'failed', 'lost')),
      status_code INTEGER,
      latency_ms INTEGER,
      error TEXT,
      response_excerpt TEXT,
      PRIMARY KEY (notification_id, attempt_no)
    );
    CREATE INDEX notifications_account_status ON notifications (account_id, status, created_at);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TABLE notification_attempts;
    DROP INDEX notifications_account_status;
    ALTER TABLE notifications DROP COLUMN body;
    ALTER TABLE notifications DROP COLUMN schedule_start_attempts;
    ALTER TABLE notifications DROP COLUMN lease_token;
  `,
  );
}
