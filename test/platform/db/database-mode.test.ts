// A sandbox's database is never served in production, nor a production one in the sandbox (decision 930). A
// sandbox database holds test money (wallet credits, sales paid with the test cards), a test bank account on every
// account and payouts that resolve themselves on the sandbox's schedule: started with COBRO_MODE=production on it,
// Cobro served that money as real and its due-work resolver marked the sandbox's pending payouts paid. Each case
// opens the runtime as `cobro serve` and the operator commands do, on one database, in one mode and then the other.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../../src/runtime.ts';
import { createAccount } from '../../../src/modules/accounts/service.ts';
import { testConfig } from '../../support/app.ts';
import { dataDirSeeder } from '../../support/cli-in-process.ts';
import { clonePostgresTemplate } from '../../support/database.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-database-mode-'));
const seedDataDir = dataDirSeeder(dir);
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const drop of drops) await drop();
});

/**
 * A database of the test's own on the run's engine, migrated and with no mode recorded, as the migrations of a first
 * start leave it before its mode is looked at (decision 985): a DATA_DIR holding a copy of the run's migrated
 * snapshot, or a clone of the run's migrated PostgreSQL template. A first start on an empty one paid PGlite's initdb
 * and every migration (about 3 CPU s a test) for nothing these tests look at; test/cli/first-start.test.ts starts
 * on an empty DATA_DIR.
 */
async function newDatabase(): Promise<Record<string, string>> {
  const dataDir = fs.mkdtempSync(path.join(dir, 'data-'));
  const clone = await clonePostgresTemplate();
  if (clone === null) {
    await seedDataDir(dataDir);
    return { DATA_DIR: dataDir };
  }
  drops.push(clone.drop);
  return { DATA_DIR: dataDir, DATABASE_URL: clone.url };
}

/** Opens and closes the runtime in `mode`: the error's text when the start is refused, else null. */
async function start(
  database: Record<string, string>,
  mode: 'sandbox' | 'production',
): Promise<string | null> {
  const config = testConfig({
    ...database,
    COBRO_MODE: mode,
    COBRO_SECRET_KEY: 'ab'.repeat(32),
  });
  try {
    const runtime = await openRuntime(config, { logger: pino({ level: 'silent' }) });
    await runtime.close();
    return null;
  } catch (error) {
    return String(error);
  }
}

/**
 * A production database of an earlier release: an account whose secrets are sealed under its key, no demo mark and
 * no mode recorded.
 */
async function olderProductionDatabase(): Promise<Record<string, string>> {
  const database = await newDatabase();
  const config = testConfig({
    ...database,
    COBRO_MODE: 'production',
    COBRO_SECRET_KEY: 'ab'.repeat(32),
  });
  const runtime = await openRuntime(config, { logger: pino({ level: 'silent' }) });
  expect((await createAccount(runtime.ctx, 'Tienda')).ok).toBe(true);
  await runtime.ctx.db.deleteFrom('cobro_meta').where('key', '=', 'mode').execute();
  await runtime.close();
  return database;
}

describe('a database keeps the mode it was first opened in', () => {
  it('refuses production on a sandbox database', { timeout: 120_000 }, async () => {
    const database = await newDatabase();
    expect(await start(database, 'sandbox')).toBeNull();
    const refused = await start(database, 'production');
    expect(refused).toContain('is a sandbox database');
    expect(refused).toContain('COBRO_MODE=production needs a database of its own');
    // The sandbox still starts on it.
    expect(await start(database, 'sandbox')).toBeNull();
  });

  it('refuses the sandbox on a production database', { timeout: 120_000 }, async () => {
    const database = await newDatabase();
    expect(await start(database, 'production')).toBeNull();
    expect(await start(database, 'sandbox')).toContain('is a production database');
    expect(await start(database, 'production')).toBeNull();
  });

  it('takes a database from before the record with a sandbox demo account for a sandbox one', {
    timeout: 120_000,
  }, async () => {
    const database = await newDatabase();
    expect(await start(database, 'sandbox')).toBeNull();
    // As an earlier release left it: the demo account's mark, no mode recorded.
    const config = testConfig({ ...database, COBRO_SECRET_KEY: 'ab'.repeat(32) });
    const runtime = await openRuntime(config, { logger: pino({ level: 'silent' }) });
    await runtime.ctx.db.deleteFrom('cobro_meta').where('key', '=', 'mode').execute();
    await runtime.ctx.db
      .insertInto('cobro_meta')
      .values({ key: 'demo_account_created', value: '2026-01-01T00:00:00.000Z' })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    await runtime.close();
    expect(await start(database, 'production')).toContain('is a sandbox database');
  });
});

describe('a start refused for its key records no mode (decision 955)', () => {
  it('leaves a production database from before the record to production', {
    timeout: 120_000,
  }, async () => {
    const database = await olderProductionDatabase();
    // A command run without COBRO_MODE (the sandbox, by default) and another key.
    const wrong = testConfig({ ...database, COBRO_SECRET_KEY: 'cd'.repeat(32) });
    const refused = await openRuntime(wrong, { logger: pino({ level: 'silent' }) }).then(
      async (r) => {
        await r.close();
        return null;
      },
      (error: unknown) => String(error),
    );
    // Refused before its key is even tried: a database with accounts and no sandbox mark is production's.
    expect(refused).toContain('is a production database');
    // It left no mark: the production service still starts on its database.
    expect(await start(database, 'production')).toBeNull();
  });
  it('refuses a command in the sandbox, with the right key, on a production database from before the record', {
    timeout: 120_000,
  }, async () => {
    // Opened by an operator's shell that forgot COBRO_MODE but holds the production key: it used to record the
    // database as a sandbox's, and every production start after was refused.
    const database = await olderProductionDatabase();
    expect(await start(database, 'sandbox')).toContain('is a production database');
    expect(await start(database, 'production')).toBeNull();
  });
});
