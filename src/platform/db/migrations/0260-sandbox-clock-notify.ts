import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 260: a process keeps each account's sandbox offset in memory (a payout stamps its rows with the account's
// "now" without a read) and drops every kept offset when this trigger says one moved, whoever moved it (the API,
// the dashboard, plain SQL): once a statement and with no payload, since any change drops them all. NOTIFY is
// delivered at commit, so an advance rolled back notifies nobody. The body stays on one line: runSql splits
// statements at a semicolon that ends a line.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE FUNCTION cobro_sandbox_clock_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('cobro_sandbox_clock_changed', ''); RETURN NULL; END $$;
    CREATE TRIGGER sandbox_clocks_changed AFTER INSERT OR UPDATE OR DELETE ON sandbox_clocks
      FOR EACH STATEMENT EXECUTE FUNCTION cobro_sandbox_clock_changed()
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TRIGGER sandbox_clocks_changed ON sandbox_clocks;
    DROP FUNCTION cobro_sandbox_clock_changed()
  `,
  );
}
