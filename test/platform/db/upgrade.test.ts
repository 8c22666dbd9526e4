// Next release opens this one's data (decision 521): each test/fixtures/upgrade/<commit>.sql holds the schema and
// the rows an earlier release wrote through its own API and CLI (make-fixture.ts there). Loaded into an empty
// database, it is migrated to this code's head; then the read paths answer what that release wrote, a new payout
// moves money, and the ledger verifies clean. A migration that cannot run over real earlier data fails here.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { createSecretBox } from '../../../src/platform/auth/secrets.ts';
import { computeSign, queryParams } from '../../../src/platform/auth/sign.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import {
  migrateToLatest,
  migrationNames,
  pendingMigrations,
} from '../../../src/platform/db/migrate.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { ManualClock } from '../../../src/platform/time/clock.ts';
import { createContext } from '../../../src/runtime.ts';
import { testConfig } from '../../support/app.ts';
import { repoRoot } from '../../support/cli.ts';

interface Fixture {
  readonly account: { accountId: string; publicToken: string; privateToken: string };
  readonly transactions: ReadonlyArray<{ id: string; order: string }>;
  readonly payouts: ReadonlyArray<{ id: string; status: string }>;
  readonly secondAccount: { id: string };
  readonly secretKeyFile: string;
}

const fixturesDir = path.join(repoRoot, 'test/fixtures/upgrade');
const fixtures = fs
  .readdirSync(fixturesDir)
  .filter((f) => f.endsWith('.sql'))
  .map((f) => f.replace(/\.sql$/, ''));
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** An empty database on the run's engine, with the fixture's SQL loaded as the earlier release left it. */
async function loadFixture(name: string, sqlText: string): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL;
  if (url === undefined) {
    const handle = await openDatabase({ engine: 'pglite', dataDir: null });
    await handle.pglite!.exec(sqlText);
    // The dump empties search_path for its own session, which on PGlite is the app's only one.
    await handle.pglite!.exec('RESET ALL');
    return handle;
  }
  const database = `${inject('postgresClonePrefix')}up_${name}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${database}`;
  const loader = new pg.Client({ connectionString: u.toString() });
  await loader.connect();
  await loader.query(sqlText);
  await loader.end();
  const handle = await openDatabase({ engine: 'postgres', url: u.toString() });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

describe.each(fixtures)('data written by release %s', (name) => {
  // About 6 CPU s (a fresh database, the dump, the migrations since); the wall time on a busy machine is longer.
  it('migrates to head; reads, a new payout and ledger verify work over it', {
    timeout: 120_000,
  }, async () => {
    const fixture = JSON.parse(
      fs.readFileSync(path.join(fixturesDir, `${name}.json`), 'utf8'),
    ) as Fixture;
    const handle = await loadFixture(
      name,
      fs.readFileSync(path.join(fixturesDir, `${name}.sql`), 'utf8'),
    );
    cleanups.push(() => handle.close());
    const pending = await pendingMigrations(handle.db);
    expect(pending.length, 'the fixture predates some migration').toBeGreaterThan(0);
    const { applied } = await migrateToLatest(handle.db);
    expect(applied).toEqual(pending);
    expect(await pendingMigrations(handle.db)).toEqual([]);
    expect((await migrationNames()).length).toBeGreaterThan(pending.length);

    const ctx = createContext({
      db: handle.db,
      engine: handle.engine,
      pool: handle.pool,
      config: testConfig({ COBRO_MODE: 'sandbox' }),
      clock: new ManualClock('2026-12-01T12:00:00Z'),
      secrets: createSecretBox(Buffer.from(fixture.secretKeyFile.trim(), 'hex')),
      logger: pino({ level: 'silent' }),
    });
    const app = await buildApp(ctx);
    cleanups.unshift(() => app.close());
    const who = fixture.account;
    const call = async (method: 'GET' | 'POST', url: string, body?: Record<string, unknown>) => {
      const [pathOnly, query] = url.split('?') as [string, string | undefined];
      const params = body ?? queryParams(query ?? '');
      const res = await app.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${who.publicToken}`,
          sign: computeSign(who.privateToken, pathOnly, params),
          accept: 'application/json',
        },
        ...(body !== undefined ? { payload: body } : {}),
      });
      return { status: res.statusCode, json: res.json() as Record<string, unknown> };
    };

    for (const t of fixture.transactions) {
      const got = await call('GET', `/api/transaction/${t.id}`);
      expect(got.status, JSON.stringify(got.json)).toBe(200);
      expect(JSON.stringify(got.json)).toContain(t.order);
    }
    for (const p of fixture.payouts) {
      const got = await call('GET', `/api/payout/${p.id}`);
      expect(got.status, JSON.stringify(got.json)).toBe(200);
      expect((got.json.payout as { status?: string }).status).toBe(p.status);
    }
    const walletBefore = await call('GET', '/api/wallet?currency=CLP');
    expect(walletBefore.status).toBe(200);
    // 500 000 credited, an approved payout of 1 000 paid; the rejected one returned its 1 500.
    expect(walletBefore.json.amount_available).toBe(499_000);
    const payout = await call('POST', '/api/wallet/payout', {
      email: 'johndoe@example.com',
      currency: 'CLP',
      subject: 'After the upgrade',
      order: `upgrade-${crypto.randomBytes(4).toString('hex')}`,
      amount: 2000,
      accountbank_name: 'Jhon Doe',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      accountbank_num: '12312312312',
    });
    expect(payout.status, JSON.stringify(payout.json)).toBe(200);
    expect((await call('GET', '/api/wallet?currency=CLP')).json.amount_available).toBe(497_000);
    const second = await app.inject({
      method: 'GET',
      url: '/api/wallet?currency=CLP',
      headers: { authorization: 'Bearer nope' },
    });
    expect(second.statusCode).toBe(401);
    const verified = await verifyLedger(handle.db);
    expect(verified, JSON.stringify(verified)).toMatchObject({ ok: true });
  });
});
