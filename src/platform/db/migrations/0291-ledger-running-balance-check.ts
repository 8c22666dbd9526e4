import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 431: every posting's running balance (balance_after_minor) is computed in JavaScript from the balances
// read under the accounts' locks; the statement that writes the postings updates each account by the sum of its
// deltas. This function is that statement's assertion: the account's balance after the update must be the last
// running balance its postings recorded, or the statement fails (SQLSTATE XX000, an internal error, never a row's
// failure) and its transaction rolls back. IMMUTABLE: it reads nothing. The body stays on one line: runSql splits
// statements at a semicolon that ends a line.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE FUNCTION cobro_running_balance(account BIGINT, balance_minor BIGINT, running_minor BIGINT) RETURNS BIGINT LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN IF balance_minor IS DISTINCT FROM running_minor THEN RAISE EXCEPTION 'ledger account % would hold % but its postings run to %', account, balance_minor, running_minor USING ERRCODE = 'XX000'; END IF; RETURN balance_minor; END $$
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP FUNCTION cobro_running_balance(BIGINT, BIGINT, BIGINT)');
}
