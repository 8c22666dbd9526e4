import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// /metrics counts payments, payouts and callback attempts by state at every scrape; these indexes let PostgreSQL
// answer those counts from the index instead of reading every row of the tables.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE INDEX transactions_status ON transactions (status);
    CREATE INDEX payouts_status ON payouts (status);
    CREATE INDEX notification_attempts_outcome ON notification_attempts (outcome);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX notification_attempts_outcome;
    DROP INDEX payouts_status;
    DROP INDEX transactions_status;
  `,
  );
}
