// Decision 988: the billing calendar on the sandbox clock. A monthly plan started on January 31 is charged on each
// month's last day (February 29 in a leap year), the same whether the clock jumps 400 days at once or in steps that
// land on and around the due instants; a daily plan keeps one cycle a local day across both changes of America/
// Santiago's daylight-saving time; and a plan with trial days keeps the day of the month its trial ended on.
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { createPlan, decliningCard, subscribedWithCard } from './helpers.ts';

const apps: TestApp[] = [];
afterAll(async () => {
  // The first app holds the database the others share: it closes last.
  for (const a of apps.reverse()) await a.close();
});

/**
 * An app whose clock starts at `clockStart` (the service zone is America/Santiago). The first one clones the
 * database; the others share it with a clock of their own (`sharing`), as a clone each cost about 0.5 CPU s and
 * proved nothing more: each test bills only accounts it created, an account's clock is its app's clock plus the
 * account's own offset, and the clock advance drains only its account's due work.
 */
async function appAt(clockStart: string) {
  const owner = apps[0];
  const t = await startTestApp(
    owner === undefined ? { clockStart } : { clockStart, sharing: owner },
  );
  apps.push(t);
  return t;
}

async function advance(t: TestApp, account: TestAccount, body: Record<string, number>) {
  const res = await t.call(account, { method: 'POST', url: '/api/sandbox/clock/advance', body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { now: string; processed: Record<string, number> };
}

/** paid[] of the v3 list for a subscription created on `day`. */
async function paid(t: TestApp, account: TestAccount, id: string, day: string) {
  const res = await t.call(account, {
    method: 'GET',
    url: `/api/sususcriptionv3?date_init=${day}&date_end=${day}`,
    sign: true,
  });
  const sub = res.json()[0].subscriptions.find((s: { id: string }) => s.id === id);
  return sub.paid as Array<Record<string, unknown>>;
}

/** Local days from `first`, `count` of them, one apart. */
function days(first: string, count: number): string[] {
  const start = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(start + i * 86_400_000).toISOString().slice(0, 10),
  );
}

describe('the billing calendar', () => {
  it('charges a plan started on January 31 on every month end, the same in one jump of 400 days or in steps', async () => {
    const t = await appAt('2027-01-31T15:00:00Z');
    const jump = await t.createAccount('Un salto');
    const steps = await t.createAccount('A pasos');
    const subJump = await subscribedWithCard(t, jump, await createPlan(t, jump, { amount: 1000 }));
    const subSteps = await subscribedWithCard(
      t,
      steps,
      await createPlan(t, steps, { amount: 1000 }),
    );
    await advance(t, jump, { days: 400 });
    // 29-day steps land before, on and after the due instants; the last one reaches the same day.
    for (let i = 0; i < 13; i++) await advance(t, steps, { days: 29 });
    await advance(t, steps, { days: 400 - 13 * 29 });
    const record = (p: Record<string, unknown>) => [
      p.payment_cycle_day,
      p.payment_day,
      p.status,
      p.paid_number,
      p.try_number,
      p.amount_paid,
    ];
    const jumped = await paid(t, jump, subJump.id, '2027-01-31');
    const stepped = await paid(t, steps, subSteps.id, '2027-01-31');
    expect(jumped.map((p) => p.payment_cycle_day)).toEqual([
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
      '2027-05-31',
      '2027-06-30',
      '2027-07-31',
      '2027-08-31',
      '2027-09-30',
      '2027-10-31',
      '2027-11-30',
      '2027-12-31',
      '2028-01-31',
      '2028-02-29',
    ]);
    expect(
      jumped.every((p) => p.status === 'success' && p.payment_day === p.payment_cycle_day),
    ).toBe(true);
    expect(stepped.map(record)).toEqual(jumped.map(record));
    expect(jumped.map((p) => p.paid_number)).toEqual(days('2027-01-01', 13).map((_, i) => i + 1));
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it('lands exactly on the due instant: the cycle is charged once, not before', async () => {
    const t = await appAt('2026-05-10T16:00:00Z');
    const a = await t.createAccount('Exacto');
    const sub = await subscribedWithCard(t, a, await createPlan(t, a, { amount: 1000 }));
    // 2026-06-10 12:00 local is 31 days later; one second short, then the second itself, then a day.
    const before = await advance(t, a, { days: 30, hours: 23, minutes: 59, seconds: 59 });
    expect(before.processed['subscription-billing']).toBe(0);
    const on = await advance(t, a, { seconds: 1 });
    expect(on.now).toBe('2026-06-10 12:00:00');
    expect(on.processed['subscription-billing']).toBe(1);
    const after = await advance(t, a, { days: 1 });
    expect(after.processed['subscription-billing']).toBe(0);
    expect(await paid(t, a, sub.id, '2026-05-10')).toMatchObject([
      { payment_cycle_day: '2026-06-10', status: 'success', paid_number: 1 },
    ]);
  });

  it('keeps one daily cycle a local day across the September change to summer time (00:30 does not exist)', async () => {
    const t = await appAt('2026-08-25T04:30:00Z');
    const a = await t.createAccount('Septiembre');
    const sub = await subscribedWithCard(
      t,
      a,
      await createPlan(t, a, { amount: 1000, interval: 'day' }),
    );
    await advance(t, a, { days: 20 });
    const got = await paid(t, a, sub.id, '2026-08-25');
    expect(got.map((p) => p.payment_cycle_day)).toEqual(days('2026-08-26', 20));
    expect(got.every((p) => p.status === 'success')).toBe(true);
  });

  it('keeps one daily cycle a local day across the April change to winter time (23:30 happens twice)', async () => {
    const t = await appAt('2027-03-25T02:30:00Z');
    const a = await t.createAccount('Abril');
    const sub = await subscribedWithCard(
      t,
      a,
      await createPlan(t, a, { amount: 1000, interval: 'day' }),
    );
    await advance(t, a, { days: 20 });
    const got = await paid(t, a, sub.id, '2027-03-24');
    expect(got.map((p) => p.payment_cycle_day)).toEqual(days('2027-03-25', 19));
    expect(got.every((p) => p.status === 'success')).toBe(true);
  });

  it('counts the months of a plan with trial days from the end of the trial, so each cycle keeps its day', async () => {
    const t = await appAt('2027-01-25T15:00:00Z');
    const a = await t.createAccount('Prueba');
    const sub = await subscribedWithCard(
      t,
      a,
      await createPlan(t, a, { amount: 1000, trial_days: 7 }),
    );
    await advance(t, a, { days: 200 });
    // The trial ends on February 1; the first month is charged on March 1, then each month on the 1st. Before,
    // the trial's days were added after each month: March 4, April 1, May 2, June 1, July 2, August 1.
    expect((await paid(t, a, sub.id, '2027-01-25')).map((p) => p.payment_cycle_day)).toEqual([
      '2027-03-01',
      '2027-04-01',
      '2027-05-01',
      '2027-06-01',
      '2027-07-01',
      '2027-08-01',
    ]);
  });

  it('books the same tries of a declining daily plan whether the clock jumps 20 days at once or moves a day or three at a time', async () => {
    const t = await appAt('2026-03-10T15:00:00Z');
    const tries = async (steps: readonly number[]) => {
      const a = await t.createAccount(`Pasos ${steps.length}`);
      const plan = await createPlan(t, a, { amount: 1000, interval: 'day', retries_max: 3 });
      const sub = await subscribedWithCard(t, a, plan, {}, decliningCard);
      for (const d of steps) await advance(t, a, { days: d });
      const rows = await t.ctx.db
        .selectFrom('su_charges as c')
        .innerJoin('transactions as x', 'x.id', 'c.transaction_id')
        .select(['c.cycle_number', 'c.try_number', 'x.status', 'x.created_at'])
        .where('c.subscription_id', '=', sub.id)
        .orderBy('c.seq')
        .execute();
      const v3 = await t.call(a, {
        method: 'GET',
        url: '/api/sususcriptionv3?date_init=2026-03-10&date_end=2026-03-10',
        sign: true,
      });
      return {
        tries: rows.map((r) => [
          r.cycle_number,
          r.try_number,
          r.status,
          r.created_at.toISOString(),
        ]),
        estatus: v3.json()[0].subscriptions[0].estatus as string,
      };
    };
    const jumped = await tries([20]);
    // Cycle 1 fails on days 1, 3, 5 and 7 and suspends the subscription; cycles 2 to 6 were tried in between.
    expect(jumped.estatus).toBe('suspended');
    expect(jumped.tries.filter((r) => r[0] === 1).map((r) => r[1])).toEqual([1, 2, 3, 4]);
    expect(new Set(jumped.tries.map((r) => `${r[0]}-${r[1]}`)).size).toBe(jumped.tries.length);
    expect(await tries(Array.from({ length: 20 }, () => 1))).toEqual(jumped);
    expect(await tries([3, 3, 3, 3, 3, 3, 2])).toEqual(jumped);
  });
});
