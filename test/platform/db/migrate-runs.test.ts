// Cobro's runner applies pending migrations in runs when one must run outside a transaction (decision 1020); each
// run's Migrator sees every applied migration, so a later-merged lower number still applies beside the rest (PGlite).
import { sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.ts';
import { migrateToLatest, migrationProvider } from '../../../src/platform/db/migrate.ts';

const handle = await openDatabase({ engine: 'pglite', dataDir: null });
afterAll(() => handle.close());

const mergedLate = ['0260-sandbox-clock-notify', '0261-settlement-due-index'];

describe('migrations applied in runs', () => {
  it('applies lower-numbered pending migrations, in and out of a transaction, after later ones', {
    timeout: 120_000,
  }, async () => {
    const withoutThem = {
      async getMigrations(): Promise<Record<string, Migration>> {
        const all = await migrationProvider.getMigrations();
        return Object.fromEntries(Object.entries(all).filter(([n]) => !mergedLate.includes(n)));
      },
    };
    const early = await new Migrator({ db: handle.db, provider: withoutThem }).migrateToLatest({
      disableTransactions: true,
    });
    expect(early.error).toBeUndefined();

    const lines: string[] = [];
    expect((await migrateToLatest(handle.db, (l) => lines.push(l))).applied).toEqual(mergedLate);
    expect(lines.filter((l) => l.endsWith('started'))).toEqual(
      mergedLate.map((n) => `migration ${n}: started`),
    );
    const index = await sql<{ valid: boolean }>`
      SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('transactions_settle_due')`.execute(
      handle.db,
    );
    expect(index.rows).toEqual([{ valid: true }]);
  });
});
