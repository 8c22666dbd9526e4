// One md5 over every row of every table of the schema: equal digests, equal databases. The route fuzz and the
// cross-account matrix compare it before and after a refused request ("nothing written"). Leaves out the sign-in
// forms' count, which counts a post whether or not it is refused (decision 950).
import { sql } from 'kysely';
import type { DbOrTx } from '../../src/platform/db/types.ts';

export async function databaseDigest(db: DbOrTx): Promise<string> {
  const tables = await sql<{
    name: string;
  }>`SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
      AND table_name <> 'sign_in_tries' ORDER BY table_name`.execute(db);
  const parts = tables.rows.map(
    ({ name }) =>
      sql`SELECT ${name}::text AS n, md5(COALESCE(string_agg(x::text, ',' ORDER BY x::text), '')) AS d FROM ${sql.id(name)} x`,
  );
  const union = parts.reduce((a, b) => sql`${a} UNION ALL ${b}`);
  const row = await sql<{
    d: string;
  }>`SELECT md5(string_agg(n || '=' || d, '|' ORDER BY n)) AS d FROM (${union}) s`.execute(db);
  return row.rows[0]!.d;
}
