import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 910: one live subscription client per e-mail in any case (`Ana@x.cl` is `ana@x.cl`). Live clients that
// already differ only in case are kept, each with its subscriptions and cards: the oldest keeps `email_twin` 0 and
// the others are numbered 1, 2, ... by age, so the index holds for them and for every client created from now on
// (always 0). Nothing is merged or deleted: the merchant decides, by changing a twin's e-mail or deleting it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE su_clients ADD COLUMN email_twin INTEGER NOT NULL DEFAULT 0 CHECK (email_twin >= 0);
    UPDATE su_clients c SET email_twin = t.twin
      FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY account_id, lower(email) ORDER BY seq) - 1 AS twin
              FROM su_clients WHERE deleted_at IS NULL) t
      WHERE c.id = t.id AND t.twin > 0;
    DROP INDEX su_clients_live_email;
    CREATE UNIQUE INDEX su_clients_live_email_any_case ON su_clients (account_id, lower(email), email_twin)
      WHERE deleted_at IS NULL;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX su_clients_live_email_any_case;
    ALTER TABLE su_clients DROP COLUMN email_twin;
    CREATE UNIQUE INDEX su_clients_live_email ON su_clients (account_id, email) WHERE deleted_at IS NULL;
  `,
  );
}
