// Runs every migration in ./migrations in name order; both engines run the same files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

async function migrationFiles(): Promise<string[]> {
  return (await fs.readdir(migrationsDir)).filter((f) => /^\d{4}-[\w-]+\.ts$/.test(f)).sort();
}

/** Every migration this cobro has, in the order they apply. */
export async function migrationNames(): Promise<string[]> {
  return (await migrationFiles()).map((f) => f.replace(/\.ts$/, ''));
}

const provider: MigrationProvider = {
  async getMigrations() {
    const files = await migrationFiles();
    const out: Record<string, Migration> = {};
    for (const file of files) {
      const mod = (await import(pathToFileURL(path.join(migrationsDir, file)).href)) as Migration;
      out[file.replace(/\.ts$/, '')] = mod;
    }
    return out;
  },
};

export interface MigrateOutcome {
  readonly applied: readonly string[];
}

/**
 * The migrations this code has that the database has not applied, read without touching it (Kysely's Migrator
 * would create its bookkeeping tables first). A database no migration ever ran on has every one pending.
 */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const known = (await migrationFiles()).map((f) => f.replace(/\.ts$/, ''));
  const table = await sql<{
    name: string | null;
  }>`SELECT to_regclass('kysely_migration')::text AS name`.execute(db);
  if (table.rows[0]?.name == null) return known;
  const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db);
  const done = new Set(applied.rows.map((r) => r.name));
  return known.filter((name) => !done.has(name));
}

export async function migrateToLatest(db: Kysely<any>): Promise<MigrateOutcome> {
  // The usual start finds nothing to do: answer that from one small query. Kysely's Migrator would first
  // introspect every table of the schema, which on PGlite grows the WASM heap by about 200 MB for good.
  if ((await pendingMigrations(db)).length === 0) return { applied: [] };
  // Modules number their migrations in separate ranges; a later-merged lower number must still apply.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(
      `migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
  };
}
