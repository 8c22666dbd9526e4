import { sql, type Kysely } from 'kysely';

/**
 * Runs a migration script one statement at a time: PGlite's query path takes a single statement.
 * Statements end with `;` at the end of a line; no statement body may contain such a line.
 */
export async function runSql(db: Kysely<any>, script: string): Promise<void> {
  const statements = script
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter((s) => s.length > 0);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
