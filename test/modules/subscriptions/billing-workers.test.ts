// Two real `cobro worker` processes bill the same PostgreSQL (issue 10 part 5, decision 101): a year of due cycles
// of several subscriptions is charged exactly once per cycle. PostgreSQL only: PGlite is one process's database.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { systemClock } from '../../../src/platform/time/clock.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { createPlan, decliningCard, subscribedWithCard } from './helpers.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const mainScript = path.resolve(import.meta.dirname, '../../../src/cli/main.ts');
const dayMs = 24 * 60 * 60 * 1000;
const secretKeyHex = 'ab'.repeat(32);

describe.skipIf(!onPostgres)('cobro worker processes billing one PostgreSQL', () => {
  let t: TestApp;
  let dataDir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // The workers run on the system clock: the app starts there too, so activation and billing share one timeline.
    // The workers' COBRO_SECRET_KEY too: a worker whose key does not open the accounts' secrets is refused at its
    // start (decision 690).
    t = await startTestApp({
      clockStart: systemClock.now().toISOString(),
      env: { COBRO_SECRET_KEY: secretKeyHex },
    });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-billing-workers-'));
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(
      children.map((c) =>
        c.exitCode !== null || c.signalCode !== null
          ? Promise.resolve()
          : new Promise((r) => c.once('exit', r)),
      ),
    );
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function startWorker(): void {
    const url = (t.handle as { url?: string }).url!;
    children.push(
      spawn(process.execPath, [mainScript, 'worker'], {
        env: {
          ...process.env,
          DATABASE_URL: url,
          COBRO_SECRET_KEY: secretKeyHex,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
          COBRO_MODE: 'sandbox',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
  }

  it('charges twelve cycles per subscription once, and suspends the declining one once', async () => {
    const a = await t.createAccount('Dos procesos');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 1990, retries_max: 1 });
    const subs = [];
    for (let i = 0; i < 4; i++) subs.push(await subscribedWithCard(t, a, plan));
    const declining = await subscribedWithCard(t, a, plan, {}, decliningCard);
    // 366 days and 6 hours: twelve monthly cycles from any start date, leap years and daylight-saving changes
    // included, and the thirteenth four weeks away.
    await t.ctx.accountClock.advance(a.id, 366 * dayMs + 6 * 60 * 60 * 1000, t.ctx.db);
    startWorker();
    startWorker();
    const cycleCharges = () =>
      t.ctx.db
        .selectFrom('su_charges as c')
        .innerJoin('transactions as x', 'x.id', 'c.transaction_id')
        .select(['c.subscription_id', 'c.cycle_number', 'c.try_number', 'x.status'])
        .where('c.account_id', '=', a.id)
        .where('c.kind', '=', 'cycle')
        .execute();
    for (let step = 0; step < 300; step++) {
      const rows = await cycleCharges();
      if (
        rows.filter((r) => r.status === 'success').length >= 48 &&
        rows.filter((r) => r.status === 'rejected').length >= 2
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // A little longer, so a second charge of anything would have had time to happen.
    await new Promise((r) => setTimeout(r, 1500));
    // Both workers still run: a start refused (its mode, its key) would exit, and the test would not be of two workers.
    expect(children.map((c) => c.exitCode)).toEqual([null, null]);
    const rows = await cycleCharges();
    for (const sub of subs) {
      const mine = rows.filter((r) => r.subscription_id === sub.id);
      expect(mine.map((r) => `${r.cycle_number}/${r.try_number}/${r.status}`).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `${i + 1}/1/success`).sort(),
      );
    }
    expect(
      rows
        .filter((r) => r.subscription_id === declining.id)
        .map((r) => `${r.cycle_number}/${r.try_number}/${r.status}`)
        .sort(),
    ).toEqual(['1/1/rejected', '1/2/rejected']);
    const captures = await t.ctx.db
      .selectFrom('journal_entries as j')
      .innerJoin('transactions as x', 'x.id', 'j.reference')
      .select('j.reference')
      .where('j.kind', '=', 'transaction.capture')
      .where('x.account_id', '=', a.id)
      .execute();
    expect(captures).toHaveLength(48);
    expect(new Set(captures.map((c) => c.reference)).size).toBe(48);
    const suspended = await t.ctx.db
      .selectFrom('su_status_logs')
      .select('final_status')
      .where('subscription_id', '=', declining.id)
      .execute();
    expect(suspended.map((s) => s.final_status)).toEqual(['register', 'active', 'suspended']);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });
});
