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
 * One line per part of the public schema: every column, constraint, index, function and trigger (Kysely's
 * bookkeeping tables left out). A function's body is its md5, so a diff names the function without printing it.
 * pg_attribute rather than information_schema.columns, a view that costs several times more: the test of every
 * `down` reads the schema twice a migration.
 */
const schemaLines = sql<{ d: string }>`
  SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) ||
         CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END || ' ' || a.attidentity::text || a.attgenerated::text ||
         ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') AS d
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0
      AND NOT a.attisdropped AND c.relname NOT LIKE 'kysely%'
  UNION ALL
  SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text NOT LIKE 'kysely%'
  UNION ALL
  SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely%'
  UNION ALL
  SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' ||
         md5(pg_get_functiondef(p.oid))
    FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
  UNION ALL
  SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal`;

/** The schema, its lines sorted. Equal lists, equal schemas (decisions 998, 1085). */
export async function schemaOf(db: Kysely<any>): Promise<string[]> {
  const rows = await sql<{
    d: string;
  }>`SELECT d FROM (${schemaLines}) s ORDER BY d COLLATE "C"`.execute(db);
  return rows.rows.map((r) => r.d);
}

/** One md5 of the schema's lines: cheaper to read and keep than the lines, for a test that reads it often. */
export async function schemaDigest(db: Kysely<any>): Promise<string> {
  const row = await sql<{ d: string }>`
    SELECT md5(coalesce(string_agg(d, E'\n' ORDER BY d COLLATE "C"), '')) AS d FROM (${schemaLines}) s`.execute(
    db,
  );
  return row.rows[0]!.d;
}
