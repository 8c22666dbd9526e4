// The data a real `cobro serve` runs on in the reliability tests: a PGlite DATA_DIR seeded from the run's migrated
// snapshot, or a fresh clone of the PostgreSQL template when DATABASE_URL is set (the suite's second pass).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { freePort } from '../support/net.ts';

export interface Engine {
  readonly name: 'pglite' | 'postgres';
  readonly env: Record<string, string>;
  readonly dataDir: string;
  /** The PostgreSQL database's URL (pg_dump), or null on PGlite. */
  readonly url: string | null;
  /** Opens the data for the final count; on PGlite only once the server is gone (one process owns the files). */
  readonly open: () => Promise<DatabaseHandle>;
  readonly dispose: () => Promise<void>;
}

async function pgliteEngine(): Promise<Engine> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-rel-'));
  // Seeded from the run's migrated snapshot: an empty DATA_DIR would cost the server an initdb and every migration.
  const seeded = await openDatabase({
    engine: 'pglite',
    dataDir,
    loadDataDir: new Blob([fs.readFileSync(inject('pgliteSnapshotPath'))]),
  });
  await seeded.close();
  return {
    name: 'pglite',
    env: { DATA_DIR: dataDir },
    dataDir,
    url: null,
    open: () => openDatabase({ engine: 'pglite', dataDir }),
    dispose: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function postgresEngine(): Promise<Engine> {
  const handle = await cloneTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-rel-'));
  return {
    name: 'postgres',
    env: { DATABASE_URL: handle.url!, DATA_DIR: dataDir },
    dataDir,
    url: handle.url!,
    open: async () => ({ ...handle, close: async () => {} }),
    dispose: async () => {
      await handle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The engine of this pass of the suite. */
export function suiteEngine(): Promise<Engine> {
  return process.env.DATABASE_URL !== undefined ? postgresEngine() : pgliteEngine();
}

/**
 * The environment of a sandbox `cobro serve` on this engine's data, on a free port, with its workers off (the test
 * drives every step), plus `more`; and the base URL it answers at.
 */
export async function serveOn(
  engine: Engine,
  more: Record<string, string> = {},
): Promise<{ readonly env: Record<string, string>; readonly baseUrl: string }> {
  const port = String(await freePort());
  const env = { ...engine.env, PORT: port, COBRO_MODE: 'sandbox', COBRO_WORKERS: '0', ...more };
  return { env, baseUrl: `http://127.0.0.1:${port}` };
}
