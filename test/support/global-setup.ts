// Migrates one database per run and lets each test file clone it: PGlite from a data-dir snapshot,
// PostgreSQL from a template database. Each file gets its own database, so files never see each other's rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshotPath: string;
    postgresTemplate: string;
    /** Prefix of every database this run clones, so concurrent runs never drop each other's. */
    postgresClonePrefix: string;
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL;
  if (url !== undefined && url !== '') {
    const runId = crypto.randomBytes(4).toString('hex');
    const template = `cobro_tpl_${runId}`;
    const clonePrefix = `cobro_t_${runId}_`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    const handle = await openDatabase({
      engine: 'postgres',
      url: withDatabase(url, template),
      poolSizeMax: 1,
    });
    await migrateToLatest(handle.db);
    await handle.close();
    project.provide('postgresTemplate', template);
    project.provide('postgresClonePrefix', clonePrefix);
    project.provide('pgliteSnapshotPath', '');
    return async () => {
      const leftovers = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR datname = $2`,
        [clonePrefix, template],
      );
      for (const row of leftovers.rows)
        await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
      await admin.end();
    };
  }
  const handle = await openDatabase({ engine: 'pglite', dataDir: null });
  await migrateToLatest(handle.db);
  const dump = await handle.pglite!.dumpDataDir('none');
  const file = path.join(
    os.tmpdir(),
    `cobro-snapshot-${process.pid}-${crypto.randomBytes(4).toString('hex')}.tar`,
  );
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await handle.close();
  project.provide('pgliteSnapshotPath', file);
  project.provide('postgresTemplate', '');
  project.provide('postgresClonePrefix', '');
  return async () => {
    fs.rmSync(file, { force: true });
  };
}
