import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Recurring billing (decision 101): the billing worker looks for cycle attempts whose worker died (a key with a
// lease that ran out) on every beat; only attempts in flight carry a key, so the index stays tiny.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'CREATE INDEX su_cycles_in_flight ON su_cycles (attempt_lease_until) WHERE attempt_key IS NOT NULL;\n',
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP INDEX su_cycles_in_flight;\n');
}
