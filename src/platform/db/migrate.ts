// Runs every migration in ./migrations in name order; both engines run the same files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql, type Kysely } from 'kysely';
import {
  Migrator,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
} from 'kysely/migration';
import { inMigrationTurn } from './migration-turn.ts';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * A migration file. `transaction = false` marks one that must run outside a transaction block, as
 * `CREATE INDEX CONCURRENTLY` must (decision 1020); every other migration runs inside one.
 */
interface MigrationFile extends Migration {
  readonly transaction?: false;
}

async function migrationFiles(): Promise<string[]> {
  return (await fs.readdir(migrationsDir)).filter((f) => /^\d{4}-[\w-]+\.ts$/.test(f)).sort();
}

/** Every migration this cobro has, in the order they apply. */
export async function migrationNames(): Promise<string[]> {
  return (await migrationFiles()).map((f) => f.replace(/\.ts$/, ''));
}

async function loadMigrations(): Promise<Record<string, MigrationFile>> {
  const out: Record<string, MigrationFile> = {};
  for (const file of await migrationFiles()) {
    const mod = (await import(pathToFileURL(path.join(migrationsDir, file)).href)) as MigrationFile;
    out[file.replace(/\.ts$/, '')] = mod;
  }
  return out;
}

export const migrationProvider: MigrationProvider = { getMigrations: loadMigrations };

export interface MigrateOutcome {
  readonly applied: readonly string[];
}

/** Where a migration's start and end are told, one line each (decision 1022). */
export type MigrationProgress = (line: string) => void;

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

/** Each migration's `up` telling `progress` its name as it begins and its time as it ends. */
function told(
  migrations: Record<string, MigrationFile>,
  progress: MigrationProgress,
): MigrationProvider {
  const out: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(migrations)) {
    out[name] = {
      ...migration,
      async up(db) {
        progress(`migration ${name}: started`);
        const startedMs = performance.now();
        await migration.up(db);
        progress(`migration ${name}: done in ${Math.round(performance.now() - startedMs)} ms`);
      },
    };
  }
  return { getMigrations: async () => out };
}

function appliedOf({ error, results }: MigrationResultSet): string[] {
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(
      `migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

interface Run {
  readonly last: string;
  readonly outside: boolean;
}

/** The pending migrations in runs: the ones that run in a transaction together, each of the others alone. */
function runsOf(pending: readonly string[], outside: (name: string) => boolean): Run[] {
  const runs: Run[] = [];
  for (const name of pending) {
    const previous = runs.at(-1);
    // A migration in a transaction joins the run before it when that one is too: the run now ends with it.
    if (previous !== undefined && !previous.outside && !outside(name)) runs.pop();
    runs.push({ last: name, outside: outside(name) });
  }
  return runs;
}

export async function migrateToLatest(
  db: Kysely<any>,
  progress: MigrationProgress = () => {},
): Promise<MigrateOutcome> {
  // The usual start finds nothing to do: answer that from one small query. Kysely's Migrator would first
  // introspect every table of the schema, which on PGlite grows the WASM heap by about 200 MB for good.
  if ((await pendingMigrations(db)).length === 0) return { applied: [] };
  return inMigrationTurn(db, async (conn) => {
    const pending = await pendingMigrations(conn);
    const migrations = await loadMigrations();
    const outside = (name: string) => migrations[name]?.transaction === false;
    const applied: string[] = [];
    // Usually one run: every pending migration in one transaction, all of them or none. One that must run outside
    // a transaction block (decision 1020) runs alone, between runs of the others; a failure keeps the runs before.
    for (const run of runsOf(pending, outside)) {
      // The Migrator sees no pending migration past the run's last, so it applies that run and stops.
      const upToRun = Object.fromEntries(
        Object.entries(migrations).filter(([name]) => name <= run.last || !pending.includes(name)),
      );
      // Modules number their migrations in separate ranges; a later-merged lower number must still apply.
      const migrator = new Migrator({
        db: conn,
        provider: told(upToRun, progress),
        allowUnorderedMigrations: true,
      });
      applied.push(
        ...appliedOf(await migrator.migrateToLatest({ disableTransactions: run.outside })),
      );
    }
    return { applied };
  });
}
