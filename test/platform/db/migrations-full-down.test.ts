// Every migration's `down`, on the run's engine (decision 1085). 0300's `down` refuses by design (the store tokens
// it hashed cannot be brought back, decision 440), so the `down`s are run in the two stretches it leaves: from head
// down to 0300, and from 0291 (the last migration before it) down to an empty schema. Each stretch must come back
// to the schema the `up`s built (columns, constraints, indexes, functions, triggers), and the `up`s run again over
// it. One database, each stretch down once and up once: a `down` that fails, leaves something behind or takes
// away too much shows here. No downgrade is promised (docs/operations.md, "Upgrades").
import { sql, type Kysely } from 'kysely';
import { Migrator, NO_MIGRATIONS, type Migration } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrationProvider } from '../../../src/platform/db/migrate.ts';
import { schemaOf } from '../../support/db-digest.ts';
import { emptyDatabase } from '../../support/database.ts';

const handle = await emptyDatabase();
afterAll(() => handle.close());

const irreversible = '0300-mall-store-token-hash';
const beforeIt = '0291-ledger-running-balance-check';

/** Kysely's Migrator over the migrations up to `upTo` (all of them without it). */
function migrator(db: Kysely<any>, upTo?: string): Migrator {
  const provider = {
    async getMigrations(): Promise<Record<string, Migration>> {
      const all = await migrationProvider.getMigrations();
      return Object.fromEntries(
        Object.entries(all).filter(([name]) => upTo === undefined || name <= upTo),
      );
    },
  };
  return new Migrator({ db, provider, allowUnorderedMigrations: true });
}

/** The migration that failed and its error, both empty when none did. */
async function outcome(run: ReturnType<Migrator['migrateTo']>) {
  const { error, results } = await run;
  const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? '';
  return { failed, error: error === undefined ? '' : String(error) };
}

const none = { failed: '', error: '' };
// 0261's and 0850's `up`s build CONCURRENTLY, outside a transaction (decision 1020). Without one over the `down`s,
// a failure leaves the database where the failing `down` stopped, which the test then reports.
const outside = { disableTransactions: true } as const;

describe('every migration down and up again', () => {
  it('from 0291 to an empty schema, and from head to 0300', { timeout: 300_000 }, async () => {
    const db = handle.db;
    expect(await outcome(migrator(db, beforeIt).migrateToLatest(outside))).toEqual(none);
    const at0291 = await schemaOf(db);

    expect(await outcome(migrator(db, beforeIt).migrateTo(NO_MIGRATIONS, outside))).toEqual(none);
    expect(await schemaOf(db)).toEqual([]);
    // Nor a sequence, a view or a type of its own (schemaOf lists none of them).
    const left = await sql<{ name: string }>`
      SELECT relname AS name FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relname NOT LIKE 'kysely%'
      UNION ALL SELECT typname FROM pg_type
        WHERE typnamespace = 'public'::regnamespace AND typtype IN ('e', 'd')`.execute(db);
    expect(left.rows).toEqual([]);

    expect(await outcome(migrator(db, beforeIt).migrateToLatest(outside))).toEqual(none);
    expect(await schemaOf(db)).toEqual(at0291);

    expect(await outcome(migrator(db, irreversible).migrateToLatest(outside))).toEqual(none);
    const at0300 = await schemaOf(db);
    await migrateToLatest(db);
    const head = await schemaOf(db);

    expect(await outcome(migrator(db).migrateTo(irreversible, outside))).toEqual(none);
    expect(await schemaOf(db)).toEqual(at0300);
    // 0300's own `down` still refuses, and leaves 0300 applied.
    expect((await outcome(migrator(db).migrateTo(beforeIt, outside))).failed).toBe(irreversible);

    await migrateToLatest(db);
    expect(await schemaOf(db)).toEqual(head);
  });
});
