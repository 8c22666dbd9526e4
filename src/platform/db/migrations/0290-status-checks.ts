import { sql, type Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Every status column names its states in a CHECK (STYLE rule 9; issue 29 point 4): these three were left plain
// TEXT. The values are those of the state tables in code (refunds/states.ts, subscriptions/states.ts), compared
// with these constraints by test/platform/db/status-checks.test.ts. Safe on a live database: each constraint is
// added NOT VALID (a moment's lock, no scan) and then validated (a scan that lets reads and writes go on). A row
// outside the states stops the migration before anything changes, naming the column and its values.
const nullificationStates = [
  'pending',
  'awaiting_funds',
  'waiting_bank_details',
  'complete',
  'reverse_deleted',
  'reverse_completed',
];
const subscriptionStates = ['register', 'active', 'finish', 'delete', 'cancel', 'suspended'];

const checks = [
  { table: 'nullifications', column: 'status', states: nullificationStates },
  { table: 'transactions', column: 'nullify_status', states: nullificationStates },
  { table: 'su_status_logs', column: 'initial_status', states: subscriptionStates },
  { table: 'su_status_logs', column: 'final_status', states: subscriptionStates },
] as const;

const inList = (states: readonly string[]) => states.map((s) => `'${s}'`).join(', ');

export async function up(db: Kysely<any>): Promise<void> {
  for (const { table, column, states } of checks) {
    const stray = await sql<{
      value: string;
    }>`SELECT DISTINCT ${sql.ref(column)} AS value FROM ${sql.table(table)}
      WHERE ${sql.ref(column)} NOT IN (${sql.join(states)}) ORDER BY 1 LIMIT 10`.execute(db);
    if (stray.rows.length > 0) {
      throw new Error(
        `${table}.${column} holds values outside its states: ${stray.rows.map((r) => JSON.stringify(r.value)).join(', ')}; correct those rows, then migrate again`,
      );
    }
  }
  for (const { table, column, states } of checks) {
    await runSql(
      db,
      `ALTER TABLE ${table} ADD CONSTRAINT ${table}_${column}_check CHECK (${column} IN (${inList(states)})) NOT VALID`,
    );
    await runSql(db, `ALTER TABLE ${table} VALIDATE CONSTRAINT ${table}_${column}_check`);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { table, column } of [...checks].reverse())
    await runSql(db, `ALTER TABLE ${table} DROP CONSTRAINT ${table}_${column}_check`);
}
