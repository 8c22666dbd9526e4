// 0181's `down` on the embedded database (decision 1021): its two DROP TABLEs were one line, which `runSql` sends as
// one statement and PGlite's query path refuses (`cannot insert multiple commands into a prepared statement`). A
// database at 0181 is migrated down past it and up again. The `down` also puts back 0180's check on
// payment_attempts.outcome, which 0181 widened with 'abandoned' (decision 1085): the schema after it is 0180's.
import { sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.ts';
import { migrationProvider } from '../../../src/platform/db/migrate.ts';
import { schemaOf } from '../../support/db-digest.ts';

const handle = await openDatabase({ engine: 'pglite', dataDir: null });
afterAll(() => handle.close());

/** The migrations up to 0181: later ones' `down`s are not what this test asks about. */
const upTo0181 = {
  async getMigrations(): Promise<Record<string, Migration>> {
    const all = await migrationProvider.getMigrations();
    return Object.fromEntries(
      Object.entries(all).filter(([name]) => name <= '0181-account-processors'),
    );
  },
};

async function tableNamed(name: string): Promise<string | null> {
  const r = await sql<{ t: string | null }>`SELECT to_regclass(${name})::text AS t`.execute(
    handle.db,
  );
  return r.rows[0]?.t ?? null;
}

describe('migration 0181 down (PGlite)', () => {
  it('migrates down past 0181 and up again', { timeout: 120_000 }, async () => {
    const migrator = new Migrator({ db: handle.db, provider: upTo0181 });
    expect((await migrator.migrateTo('0180-payment-attempts')).error).toBeUndefined();
    const at0180 = await schemaOf(handle.db);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await tableNamed('processor_sessions')).toBe('processor_sessions');

    const down = await migrator.migrateTo('0180-payment-attempts');
    expect(down.error).toBeUndefined();
    expect(await tableNamed('processor_sessions')).toBeNull();
    expect(await tableNamed('account_processors')).toBeNull();
    expect(await schemaOf(handle.db)).toEqual(at0180);

    const up = await migrator.migrateToLatest();
    expect(up.error).toBeUndefined();
    expect(up.results?.map((r) => r.migrationName)).toEqual(['0181-account-processors']);
    expect(await tableNamed('account_processors')).toBe('account_processors');
  });
});
