import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Callback retention (decision 994): the prune walks the delivered and failed callbacks oldest last attempt first
// (`notifications_final`, whose predicate is the prune's own status test), and keeps the ones a destination change or
// an audit row names, each asked by an index that holds only such references: a destination change's callback, and
// an audit row whose target is a callback id (a resend's, the only rows that name one).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE INDEX notifications_final ON notifications (updated_at) WHERE status IN ('delivered', 'failed');
    CREATE INDEX destination_changes_notification ON destination_changes (notification_id) WHERE notification_id IS NOT NULL;
    CREATE INDEX audit_log_callback_target ON audit_log (target) WHERE starts_with(target, 'msg_')
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
