import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 710: a dispute the operator opens may carry a key, so running the same command again finds it instead of
// opening a second chargeback: a line of `cobro disputes import` is keyed by a hash of the file's text and the
// line's number (`import:<sha256>:<line>`), `cobro disputes open --key K` by its key (`open:K`). Unique per account;
// null for a dispute opened without one (the sandbox's, and those before this migration).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE disputes ADD COLUMN operator_key TEXT;
    CREATE UNIQUE INDEX disputes_operator_key ON disputes (account_id, operator_key)
      WHERE operator_key IS NOT NULL;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  // One statement a line: runSql splits there, and PGlite takes one statement at a time (decision 1021).
  await runSql(
    db,
    `
    DROP INDEX disputes_operator_key;
    ALTER TABLE disputes DROP COLUMN operator_key
  `,
  );
}
