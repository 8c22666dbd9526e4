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

export async function cloneTestDatabase(): Promise<DatabaseHandle> {
  const template = inject('postgresTemplate');
  const url = process.env.DATABASE_URL;
  if (template !== '' && url !== undefined) {
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
    const handle = await openDatabase({ engine: 'postgres', url: withDatabase(url, name) });
    return {
      ...handle,
      close: async () => {
        await handle.close();
        const dropper = new pg.Client({ connectionString: url });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
        await dropper.end();
      },
    };
  }
  const snapshot = fs.readFileSync(inject('pgliteSnapshotPath'));
  return openDatabase({ engine: 'pglite', dataDir: null, loadDataDir: new Blob([snapshot]) });
}
