import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 200: an account's sandbox offset as a function, for a statement that stamps one known account's row
// (the create's INSERT). The same lookup written as a scalar subquery is planned again with every statement, and
// on PGlite that planning runs in WebAssembly on the server's event loop: a third of a create's INSERT. PL/pgSQL
// keeps the plan of its query for the session. STABLE: it reads with the calling statement's snapshot, as the
// subquery did. The body stays on one line: runSql splits statements at a semicolon that ends a line.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE FUNCTION cobro_account_offset_ms(account TEXT) RETURNS BIGINT LANGUAGE plpgsql STABLE AS $$ DECLARE found_ms BIGINT; BEGIN SELECT sc.offset_ms INTO found_ms FROM sandbox_clocks sc WHERE sc.account_id = account; RETURN COALESCE(found_ms, 0); END $$
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP FUNCTION cobro_account_offset_ms(TEXT)');
}
