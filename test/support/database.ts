// A fresh, migrated database for one test file, on the engine the run uses (PGlite unless DATABASE_URL is set).
import fs from 'node:fs';
import crypto from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A test database; `url` is set on PostgreSQL, so other processes (workers under test) can open it too. */
export type TestDatabaseHandle = DatabaseHandle & { readonly url?: string };

/** A PostgreSQL database cloned from the run's migrated template, not opened: its URL, and a drop for the end. */
export interface PostgresClone {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * A new database on the run's PostgreSQL, a copy of its migrated template (global-setup.ts); null on a PGlite run.
 * Named with the run's clone prefix, so the run's teardown drops it if the test could not.
 */
export async function clonePostgresTemplate(): Promise<PostgresClone | null> {
  const template = inject('postgresTemplate');
  const url = process.env.DATABASE_URL;
  if (template === '' || url === undefined) return null;
  const name = `${inject('postgresClonePrefix')}${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (error) {
        // Two files cloning the template at the same instant: one waits and tries again.
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(url, name),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await dropper.end();
    },
  };
}

export async function cloneTestDatabase(): Promise<TestDatabaseHandle> {
  const clone = await clonePostgresTemplate();
  if (clone !== null) {
    const handle = await openDatabase({ engine: 'postgres', url: clone.url });
    return {
      ...handle,
      url: clone.url,
      close: async () => {
        await handle.close();
        await clone.drop();
      },
    };
  }
  const snapshot = fs.readFileSync(inject('pgliteSnapshotPath'));
  return openDatabase({ engine: 'pglite', dataDir: null, loadDataDir: new Blob([snapshot]) });
}

/**
 * A database no migration has run on, on the run's engine: a new in-memory PGlite, or on PostgreSQL a new empty
 * database (not the migrated template) named with the run's clone prefix and dropped by `close`. For tests of the
 * migrations themselves.
 */
export async function emptyDatabase(): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  if (url === undefined) return openDatabase({ engine: 'pglite', dataDir: null });
  const name = `${inject('postgresClonePrefix')}empty_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const handle = await openDatabase({ engine: 'postgres', url: withDatabase(url, name) });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
