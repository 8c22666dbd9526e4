import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Recurring billing (issue 10 parts 5 and 7, decision 101): each attempt at a cycle is one su_charges row with
// its try number, unique per (subscription, cycle, try), so two workers, or a worker that died mid-charge and
// the one that resumes it, can never open a cycle's attempt twice; the due query finds the subscriptions whose
// next cycle or retry has come.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE su_charges ADD COLUMN try_number INTEGER CHECK (try_number >= 1);
    CREATE UNIQUE INDEX su_charges_cycle_try ON su_charges (subscription_id, cycle_number, try_number) WHERE kind = 'cycle';
    CREATE INDEX su_cycles_open ON su_cycles (subscription_id, next_try_at) WHERE status IN ('pending', 'retry');
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP INDEX su_cycles_open;\nDROP INDEX su_charges_cycle_try;\nALTER TABLE su_charges DROP COLUMN try_number;\n',
  );
}
