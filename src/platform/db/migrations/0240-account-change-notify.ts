import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 190: every process keeps the accounts it authenticated in memory and drops them when this trigger says
// an account's credentials, signing, status or name changed, whoever changed it (the API, the CLI, plain SQL).
// NOTIFY is delivered at commit, so a change rolled back notifies nobody. The body stays on one line: runSql splits
// statements at a semicolon that ends a line.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE FUNCTION cobro_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('cobro_account_changed', OLD.id); RETURN NULL; END $$;
    CREATE TRIGGER accounts_changed AFTER UPDATE OF public_token_hash, private_token_enc, strict_signing, status, name OR DELETE ON accounts
      FOR EACH ROW EXECUTE FUNCTION cobro_account_changed()
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TRIGGER accounts_changed ON accounts;
    DROP FUNCTION cobro_account_changed()
  `,
  );
}
