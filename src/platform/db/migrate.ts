// Runs every migration in ./migrations in name order; both engines run the same files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

const provider: MigrationProvider = {
  async getMigrations() {
    const files = (await fs.readdir(migrationsDir)).filter((f) => /^\d{4}-[\w-]+\.ts$/.test(f)).sort();
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

export async function migrateToLatest(db: Kysely<any>): Promise<MigrateOutcome> {
  // Modules number their migrations in separate ranges; a later-merged lower number must still apply.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
