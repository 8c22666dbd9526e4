// One md5 over every row of every table of the schema: equal digests, equal databases. The route fuzz and the
// cross-account matrix compare it before and after a refused request ("nothing written"). Leaves out the sign-in
// forms' count, which counts a post whether or not it is refused (decision 950).
import { sql, type Kysely } from 'kysely';
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

/**
 * The schema, one sorted line per part: every column, constraint, index, function and trigger of the public schema
 * (Kysely's bookkeeping tables left out). Equal lists, equal schemas: a `down` then its `up` must give the same list
 * (decisions 998, 1085). A function's body is its md5, so a diff names the function without printing it.
 */
export async function schemaOf(db: Kysely<any>): Promise<string[]> {
  const cols = await sql<{ d: string }>`
    SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
           coalesce(column_default, '') AS d
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely%'`.execute(
    db,
  );
  const cons = await sql<{ d: string }>`
    SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS d
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace
       AND conrelid::regclass::text NOT LIKE 'kysely%'`.execute(db);
  const idx = await sql<{ d: string }>`
    SELECT indexdef AS d FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely%'`.execute(
    db,
  );
  const fns = await sql<{ d: string }>`
    SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' ||
           md5(pg_get_functiondef(p.oid)) AS d
      FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`.execute(db);
  const triggers = await sql<{ d: string }>`
    SELECT pg_get_triggerdef(t.oid) AS d FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal`.execute(db);
  return [...cols.rows, ...cons.rows, ...idx.rows, ...fns.rows, ...triggers.rows]
    .map((r) => r.d)
    .sort();
}
