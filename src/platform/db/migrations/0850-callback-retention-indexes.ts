import type { Kysely } from 'kysely';
import { dropInvalidIndex } from '../invalid-index.ts';
import { runSql } from '../run-sql.ts';

// Callback retention (decision 994): the prune walks the delivered and failed callbacks oldest last attempt first
// (`notifications_final`, whose predicate is the prune's own status test), and keeps the ones a destination change or
// an audit row names, each asked by an index that holds only such references: a destination change's callback, and
// an audit row whose target is a callback id (a resend's, the only rows that name one).
//
// Built CONCURRENTLY, outside a transaction (decision 1020): the three tables grow with traffic, and a plain
// CREATE INDEX blocked their writes while it read them whole. A database that ran the earlier plain build has the
// same three indexes. A build cut short leaves its index INVALID: dropped and built again on the next run.
export const transaction = false;

const indexes = [
  'notifications_final',
  'destination_changes_notification',
  'audit_log_callback_target',
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const name of indexes) await dropInvalidIndex(db, name);
  await runSql(
    db,
    `
    CREATE INDEX CONCURRENTLY IF NOT EXISTS notifications_final ON notifications (updated_at) WHERE status IN ('delivered', 'failed');
    CREATE INDEX CONCURRENTLY IF NOT EXISTS destination_changes_notification ON destination_changes (notification_id) WHERE notification_id IS NOT NULL;
    CREATE INDEX CONCURRENTLY IF NOT EXISTS audit_log_callback_target ON audit_log (target) WHERE starts_with(target, 'msg_')
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX audit_log_callback_target;
    DROP INDEX destination_changes_notification;
    DROP INDEX notifications_final
  `,
  );
}
