import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 140: an account may require the Cobro-Signature header on every request it authenticates
// (`cobro accounts require-strict-signing ID`). Off by default, so existing clients that send only `Sign` keep working.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'ALTER TABLE accounts ADD COLUMN strict_signing BOOLEAN NOT NULL DEFAULT false;',
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE accounts DROP COLUMN strict_signing;');
}
