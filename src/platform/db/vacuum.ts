// The embedded database's maintenance vacuum (decision 986). PGlite runs no autovacuum (one backend, no launcher),
// so every UPDATE and DELETE leaves a dead row version whose space nothing makes reusable: measured under a steady
// load of payments, callbacks, settlements and payouts, the outbox grew to 2.7 times its live size and
// `transactions` to 2.0 times, and the files grew by 1.4 times what the business added. A plain VACUUM (never FULL,
// which rewrites a table under an exclusive lock) marks the space free for new rows; PostgreSQL's autovacuum does
// this itself, so nothing here runs there.
import { sql } from 'kysely';
import type { DbOrTx } from './types.ts';
import { limits } from '../../limits/index.ts';

/**
 * The tables to vacuum, by name: every table of the schema, or (`changedOnly`) those with dead row versions since
 * this process started (`pg_stat_user_tables` counts them in the process; PGlite does not keep the counts across a
 * restart, so a process's first run takes every table).
 */
export async function vacuumCandidates(db: DbOrTx, changedOnly: boolean): Promise<string[]> {
  // The counts of the last second's statements wait in the backend, flushed at most once a second when it is idle:
  // this statement's end flushes them, so the next one reads them.
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ relname: string }>`
    SELECT relname FROM pg_stat_user_tables
    WHERE schemaname = current_schema() AND (NOT ${changedOnly}::boolean OR n_dead_tup > 0)
    ORDER BY relname
    LIMIT ${limits.embeddedVacuumTablesMax}::int`.execute(db);
  return rows.map((r) => r.relname);
}

/** A plain VACUUM of one table (not in a transaction: VACUUM refuses one). */
export async function vacuumTable(db: DbOrTx, table: string): Promise<void> {
  await sql`VACUUM ${sql.id(table)}`.execute(db);
}
