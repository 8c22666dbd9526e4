import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 580: a TOTP code signs in once. The 30-second step of the last code a user gave is kept; a code of that
// step or an earlier one (still inside the one-step window) is refused, so a code seen over a shoulder or in a
// proxy's log cannot open a second session.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE dashboard_users ADD COLUMN totp_last_step BIGINT');
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE dashboard_users DROP COLUMN totp_last_step');
}
