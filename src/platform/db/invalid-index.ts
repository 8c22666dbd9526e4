import { sql, type Kysely } from 'kysely';

/**
 * Drops the named index when an interrupted `CREATE INDEX CONCURRENTLY` left it INVALID (decision 1020).
 * PostgreSQL keeps such an index, never read but written by every insert, and `CREATE INDEX CONCURRENTLY IF NOT
 * EXISTS` would take it as built; dropped here, the migration that names it builds it again.
 */
export async function dropInvalidIndex(db: Kysely<any>, name: string): Promise<void> {
  const invalid = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_index WHERE indexrelid = to_regclass(${name}) AND NOT indisvalid`.execute(
    db,
  );
  if ((invalid.rows[0]?.n ?? 0) > 0) await sql`DROP INDEX CONCURRENTLY ${sql.id(name)}`.execute(db);
}
