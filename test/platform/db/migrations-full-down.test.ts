// Every migration's `down`, on the run's engine (decision 1085). 0300's `down` refuses by design (the store tokens
// it hashed cannot be brought back, decision 440), so the `down`s run in the two stretches it leaves: from head down
// to 0300, and from 0291 (the last migration before it) down to an empty schema. Each migration's `down` must leave
// exactly the schema its `up` found (columns, constraints, indexes, functions, triggers): its digest is read before
// each `up` and after each `down`, inside one Migrator run per stretch and direction, so the cost is one full down
// and one full up. Then the `up`s run again through Cobro's runner and give head's schema. No downgrade is
// promised (docs/operations.md, "Upgrades"); this keeps the `down`s honest for whoever runs one by hand.
import { sql, type Kysely } from 'kysely';
import { Migrator, NO_MIGRATIONS, type Migration } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrationProvider } from '../../../src/platform/db/migrate.ts';
import { schemaDigest, schemaOf } from '../../support/db-digest.ts';
import { emptyDatabase } from '../../support/database.ts';

const handle = await emptyDatabase();
afterAll(() => handle.close());

const irreversible = '0300-mall-store-token-hash';
const beforeIt = '0291-ledger-running-balance-check';

/** The digest of the schema each migration's `up` found, and of the one each `down` left, by migration name. */
const beforeUp = new Map<string, string>();
const afterDown = new Map<string, string>();

/** Kysely's Migrator over the migrations up to `upTo` (all of them without it), each read around as above. */
function migrator(db: Kysely<any>, upTo?: string): Migrator {
  const provider = {
    async getMigrations(): Promise<Record<string, Migration>> {
      const all = await migrationProvider.getMigrations();
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(all)) {
        if (upTo !== undefined && name > upTo) continue;
        out[name] = {
          async up(tx) {
            beforeUp.set(name, await schemaDigest(tx));
            await m.up(tx);
          },
          async down(tx) {
            await m.down?.(tx);
            afterDown.set(name, await schemaDigest(tx));
          },
        };
      }
      return out;
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

/**
 * Each `down` whose schema differs from the one its `up` found. To see how, migrate a database to the migration
 * before it and compare schemaOf there with schemaOf after this `down`, as migration-0181-down.test.ts does.
 */
function unmatchedDowns(): string[] {
  return [...afterDown]
    .filter(([name, after]) => beforeUp.get(name) !== after)
    .map(([name]) => name);
}

const none = { failed: '', error: '' };
// 0261's and 0850's `up`s build CONCURRENTLY, outside a transaction (decision 1020). Without one over the `down`s,
// a failure leaves the database where the failing `down` stopped, which the test then reports.
const outside = { disableTransactions: true } as const;

describe('every migration down and up again', () => {
  it('each down leaves the schema its up found; up again gives head', {
    timeout: 300_000,
  }, async () => {
    const db = handle.db;
    expect(await outcome(migrator(db, beforeIt).migrateToLatest(outside))).toEqual(none);
    expect(await outcome(migrator(db, beforeIt).migrateTo(NO_MIGRATIONS, outside))).toEqual(none);
    expect(await schemaOf(db)).toEqual([]);
    // Nor a sequence, a view or a type of its own (schemaOf lists none of them).
    const left = await sql<{ name: string }>`
      SELECT relname AS name FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relname NOT LIKE 'kysely%'
      UNION ALL SELECT typname FROM pg_type
        WHERE typnamespace = 'public'::regnamespace AND typtype IN ('e', 'd')`.execute(db);
    expect(left.rows).toEqual([]);

    expect(await outcome(migrator(db).migrateToLatest(outside))).toEqual(none);
    const head = await schemaOf(db);
    expect(await outcome(migrator(db).migrateTo(irreversible, outside))).toEqual(none);
    // 0300's own `down` still refuses, and leaves 0300 applied.
    expect((await outcome(migrator(db).migrateTo(beforeIt, outside))).failed).toBe(irreversible);

    const names = Object.keys(await migrationProvider.getMigrations());
    expect([...afterDown.keys()].sort()).toEqual(names.filter((n) => n !== irreversible));
    expect(unmatchedDowns()).toEqual([]);

    await migrateToLatest(db);
    expect(await schemaOf(db)).toEqual(head);
  });
});
