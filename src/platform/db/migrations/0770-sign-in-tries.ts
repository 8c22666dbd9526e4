import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 950: the dashboard's sign-in forms count their posts per client address here, so every process on one
// database shares the count (it was in each process's memory: N servers allowed N times the limit). One row per
// address that posted in the last window; rows of windows past are deleted as new posts come.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE sign_in_tries (
      key TEXT PRIMARY KEY,
      window_started_at TIMESTAMPTZ NOT NULL,
      tries INTEGER NOT NULL CHECK (tries > 0)
    );
    CREATE INDEX sign_in_tries_window ON sign_in_tries (window_started_at)
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE sign_in_tries');
}
