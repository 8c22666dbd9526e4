// Recurring billing over HTTP (issue 10 parts 5 and 7, decision 101): the sandbox clock drives the billing due
// work; a monthly subscription advanced a year with one declined cycle, retried, suspended and recovered with a
// new card ends with exactly twelve charges, the wallet to the peso, the ledger clean and every §7.15 callback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import {
  subscribedWithCard,
  createPlan,
  decliningCard,
  enrolOn,
  goodCard,
  newCardLink,
} from './helpers.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function advance(account: TestAccount, days: number) {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sandbox/clock/advance',
    body: { days },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { now: string; processed: Record<string, number> };
}

async function show(account: TestAccount, id: string) {
  return (
    await t.call(account, { method: 'GET', url: `/api/sususcription/${id}`, sign: true })
  ).json();
}

/** paid[] of the v3 list (the subscriptions were all created on the first day of the test clock). */
async function paid(account: TestAccount, id: string) {
  const res = await t.call(account, {
    method: 'GET',
    url: '/api/sususcriptionv3?date_init=2026-03-10&date_end=2026-03-10',
    sign: true,
  });
  const sub = res.json()[0].subscriptions.find((s: { id: string }) => s.id === id);
  return { estatus: sub.estatus as string, paid: sub.paid as Array<Record<string, unknown>> };
}

async function cycleCharges(id: string) {
  return t.ctx.db
    .selectFrom('su_charges as c')
    .innerJoin('transactions as x', 'x.id', 'c.transaction_id')
    .select(['c.cycle_number', 'c.try_number', 'x.status', 'x.amount_minor', 'x.id'])
    .where('c.subscription_id', '=', id)
    .where('c.kind', '=', 'cycle')
    .orderBy('c.seq')
    .execute();
}

const successes = async (id: string) =>
  (await cycleCharges(id)).filter((c) => c.status === 'success');

describe('recurring billing on the sandbox clock', () => {
  it('bills a year with one declined cycle retried, suspended and recovered: twelve charges, the wallet to the peso, callbacks', async () => {
    const merchant = await t.createAccount('Cajas');
    await accountsSetFee.run(t.ctx, {
      values: { payment: '1', percent: '2.95', fixed: '50' },
      positionals: [merchant.id],
    });
    const plan = await createPlan(t, merchant, {
      name: 'Caja mensual',
      amount: 9990,
      interval: 'month',
      retries_max: 3,
      url_notify_payment: `${receiver.url}/pay`,
    });
    const sub = await subscribedWithCard(t, merchant, plan);

    // 2026-05-11: the cycles of April 10 and May 10 are paid.
    await advance(merchant, 62);
    expect((await successes(sub.id)).map((c) => c.cycle_number)).toEqual([1, 2]);

    // The payer's new card enrols (its CLP 50 check passes) but declines every charge after that.
    await enrolOn(t, await newCardLink(t, merchant, sub.id), decliningCard);
    await advance(merchant, 31);
    let v3 = await paid(merchant, sub.id);
    expect(v3.estatus).toBe('active');
    expect(v3.paid[2]).toMatchObject({
      payment_cycle_day: '2026-06-10',
      payment_day: null,
      status: 'retry',
      amount_paid: 0,
      try_number: 1,
      paid_number: 3,
    });

    // Three retries two days apart, counted from the cycle's due time, then the limit: suspended.
    await advance(merchant, 10);
    v3 = await paid(merchant, sub.id);
    expect(v3.estatus).toBe('suspended');
    expect(v3.paid[2]).toMatchObject({ status: 'maximum attempt limit', try_number: 4 });
    expect((v3.paid[2]!.transactions as unknown[]).length).toBe(4);

    // Suspended through July and August: nothing is charged.
    const suspendedRun = await advance(merchant, 60);
    expect(suspendedRun.processed['subscription-billing']).toBe(0);
    expect(await successes(sub.id)).toHaveLength(2);

    // A new card reactivates it and collects June, July and August at once.
    await enrolOn(t, await newCardLink(t, merchant, sub.id), goodCard);
    expect((await show(merchant, sub.id)).status).toBe('active');
    expect((await successes(sub.id)).map((c) => c.cycle_number)).toEqual([1, 2, 3, 4, 5]);

    // The rest of the year, to 2027-03-10 12:00 (cycle 12), and two days for its settlement.
    await advance(merchant, 202);
    await advance(merchant, 2);
    const charges = await cycleCharges(sub.id);
    expect(charges.filter((c) => c.status === 'success').map((c) => c.cycle_number)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    ]);
    expect(
      charges.filter((c) => c.status === 'rejected').map((c) => [c.cycle_number, c.try_number]),
    ).toEqual([
      [3, 1],
      [3, 2],
      [3, 3],
      [3, 4],
    ]);
    v3 = await paid(merchant, sub.id);
    expect(v3.paid).toHaveLength(12);
    expect(v3.paid.every((p) => p.status === 'success' && p.amount_paid === 9990)).toBe(true);
    expect(v3.paid[3]).toMatchObject({
      payment_cycle_day: '2026-07-10',
      payment_day: '2026-08-20',
      try_number: 1,
      paid_number: 4,
    });
    expect(v3.paid[11]).toMatchObject({
      payment_cycle_day: '2027-03-10',
      payment_day: '2027-03-10',
    });

    const got = await show(merchant, sub.id);
    expect(got.transactions.filter((x: { status: string }) => x.status === 'success')).toHaveLength(
      12,
    );
    expect(got.logs.status.map((l: { final_status: string }) => l.final_status)).toEqual([
      'register',
      'active',
      'suspended',
      'active',
    ]);

    // The client read names the tries with the reference's 9-value set.
    const client = (
      await t.call(merchant, { method: 'GET', url: `/api/suclient/${sub.client}`, sign: true })
    ).json();
    const statuses = client.subcriptions.transactions.map((x: { status: string }) => x.status);
    expect(statuses.filter((s: string) => s !== 'success')).toEqual([
      'retry',
      'retry',
      'retry',
      'maximum attempt limit',
    ]);

    // 9990 less 2.95% (295) and 50 fixed, twelve times, all settled to the wallet.
    expect(
      await readBalance(t.ctx.db, {
        owner: merchant.id,
        code: 'wallet_available',
        currency: 'CLP',
      }),
    ).toBe(12n * (9990n - 295n - 50n));
    expect(
      await readBalance(t.ctx.db, {
        owner: merchant.id,
        code: 'pending_settlement',
        currency: 'CLP',
      }),
    ).toBe(0n);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);

    // Every try's §7.15 callback: twelve successes and four rejections, delivered to the plan's url_notify_payment.
    const outbox = await t.ctx.db
      .selectFrom('notifications')
      .select('event_type')
      .where('url', '=', `${receiver.url}/pay`)
      .execute();
    expect(outbox.map((o) => o.event_type)).toEqual(
      Array.from({ length: 16 }, () => 'subscription.charge'),
    );
    while ((await deliverDueNotifications(t.ctx)) > 0) {
      /* drain the outbox */
    }
    const calls = receiver.requests.filter((r) => r.path === '/pay').map((r) => JSON.parse(r.body));
    expect(calls).toHaveLength(16);
    expect(calls.filter((c) => c.status === 'success')).toHaveLength(12);
    expect(calls.filter((c) => c.status === 'rejected')).toHaveLength(4);
    const numbers = new Set(got.transactions.map((x: { transaction: number }) => x.transaction));
    for (const c of calls) {
      expect(Object.keys(c)).toEqual([
        'transaction_id',
        'verification_key',
        'order',
        'status',
        'subscriptions',
      ]);
      expect(typeof c.transaction_id).toBe('number');
      expect(numbers.has(c.transaction_id)).toBe(true);
      expect(c.subscriptions).toEqual({ id: sub.id, client: sub.client });
    }
  });

  it('charges twelve monthly cycles in one year-long advance, with the retries, suspension and callbacks of a declining card', async () => {
    const merchant = await t.createAccount('Anual');
    const plan = await createPlan(t, merchant, {
      name: 'Mensual',
      amount: 1500,
      url_notify_payment: `${receiver.url}/year`,
    });
    const sub = await subscribedWithCard(t, merchant, plan);
    const declining = await subscribedWithCard(t, merchant, plan, {}, decliningCard);
    const run = await advance(merchant, 365);
    // Twelve charges, and the declining card's first cycle: the first try and three retries, then suspended.
    expect(run.processed['subscription-billing']).toBe(12 + 4);
    expect(
      (await cycleCharges(declining.id)).map((c) => [c.cycle_number, c.try_number, c.status]),
    ).toEqual([
      [1, 1, 'rejected'],
      [1, 2, 'rejected'],
      [1, 3, 'rejected'],
      [1, 4, 'rejected'],
    ]);
    expect(await paid(merchant, declining.id)).toMatchObject({
      estatus: 'suspended',
      paid: [{ status: 'maximum attempt limit', try_number: 4 }],
    });
    const callbacks = await t.ctx.db
      .selectFrom('notifications')
      .select('payload')
      .where('url', '=', `${receiver.url}/year`)
      .execute();
    const payloads = callbacks.map(
      (c) => c.payload as { status: string; subscriptions: { id: string } },
    );
    expect(
      payloads.filter((p) => p.subscriptions.id === sub.id && p.status === 'success'),
    ).toHaveLength(12);
    expect(
      payloads.filter((p) => p.subscriptions.id === declining.id && p.status === 'rejected'),
    ).toHaveLength(4);
    expect(payloads).toHaveLength(16);
    expect((await successes(sub.id)).map((c) => c.cycle_number)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    ]);
    expect((await paid(merchant, sub.id)).paid.map((p) => p.payment_cycle_day)).toEqual([
      '2026-04-10',
      '2026-05-10',
      '2026-06-10',
      '2026-07-10',
      '2026-08-10',
      '2026-09-10',
      '2026-10-10',
      '2026-11-10',
      '2026-12-10',
      '2027-01-10',
      '2027-02-10',
      '2027-03-10',
    ]);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it("waits out the trial days, charges a variable plan at the subscription's amount, and never bills consumption plans", async () => {
    const merchant = await t.createAccount('Prueba');
    const trial = await subscribedWithCard(
      t,
      merchant,
      await createPlan(t, merchant, { name: 'Trial', amount: 2000, trial_days: 10 }),
    );
    const variable = await subscribedWithCard(
      t,
      merchant,
      await createPlan(t, merchant, { name: 'Variable', type: 'variable' }),
      { amount: '4321' },
    );
    const consumption = await subscribedWithCard(
      t,
      merchant,
      await createPlan(t, merchant, { name: 'Consumo' }),
    );
    await advance(merchant, 31);
    expect(await successes(trial.id)).toHaveLength(0);
    // 2026-04-21 (the cycle fell due on the 20th at the activation's 12:00).
    await advance(merchant, 11);
    expect((await paid(merchant, trial.id)).paid.map((p) => p.payment_cycle_day)).toEqual([
      '2026-04-20',
    ]);
    expect((await successes(variable.id)).map((c) => c.amount_minor.toString())).toEqual(['4321']);
    await advance(merchant, 30);
    expect((await successes(variable.id)).map((c) => c.amount_minor.toString())).toEqual([
      '4321',
      '4321',
    ]);
    expect(await cycleCharges(consumption.id)).toHaveLength(0);
  });

  it('charges nothing after the subscription is deleted, even a cycle waiting for a retry', async () => {
    const merchant = await t.createAccount('Baja');
    const plan = await createPlan(t, merchant, { name: 'Baja', amount: 3000 });
    const kept = await subscribedWithCard(t, merchant, plan);
    const retrying = await subscribedWithCard(t, merchant, plan, {}, decliningCard);
    await advance(merchant, 32);
    expect(await successes(kept.id)).toHaveLength(1);
    expect((await paid(merchant, retrying.id)).paid[0]).toMatchObject({
      status: 'retry',
      try_number: 1,
    });
    for (const id of [kept.id, retrying.id]) {
      const res = await t.call(merchant, {
        method: 'DELETE',
        url: `/api/sususcription/${id}`,
        sign: true,
      });
      expect(res.json()).toEqual({ id, status: 'success' });
    }
    const run = await advance(merchant, 365);
    expect(run.processed['subscription-billing']).toBe(0);
    expect(await successes(kept.id)).toHaveLength(1);
    expect(await cycleCharges(retrying.id)).toHaveLength(1);
    expect((await paid(merchant, retrying.id)).paid[0]).toMatchObject({
      status: 'canceled by paymaster',
    });
  });
});
