import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 740: when a user first set a password through an invitation. An e-mail is unique across accounts
// (decision 541); a user of another account that was never accepted and whose link is dead gives the e-mail way to
// a new invitation, while a user who once signed up (a reset one too, whose password is cleared) keeps it. Rows
// with a password today were accepted; the time is not known, so their creation stands in for it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE dashboard_users ADD COLUMN accepted_at TIMESTAMPTZ;
    UPDATE dashboard_users SET accepted_at = created_at WHERE password_hash IS NOT NULL;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE dashboard_users DROP COLUMN accepted_at;');
}
