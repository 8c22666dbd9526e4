// Decision 988: a new card enrolled while a cycle's try on the old card is with the processor. The enrolment finds
// the try in flight and cannot bring it forward; before, the old card's decline of the last try then suspended the
// subscription, though it held a card that pays, and an earlier try waited its two days. Now a decline on a card
// older than the newest live one leaves the cycle due again from the moment the new card came.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { chargeAttempt, type Attempt } from '../../../src/modules/subscriptions/billing-outcome.ts';
import { openNextEvent } from '../../../src/modules/subscriptions/billing.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { createPlan, decliningCard, enrolOn, newCardLink, subscribedWithCard } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A subscription on the declining card with its first cycle's try opened; the good card enrols during its charge. */
async function newCardWhileCharging(account: TestAccount, retriesMax: number) {
  // The test clock stands at 15:00 UTC, noon in Santiago: its UTC day is the local day the subscription is created.
  const createdDay = t.clock.now().toISOString().slice(0, 10);
  const plan = await createPlan(t, account, { amount: 4300, retries_max: retriesMax });
  const sub = await subscribedWithCard(t, account, plan, {}, decliningCard);
  // The clock stands on the cycle's due instant: a retry two days on is not due yet, one due at once is.
  const due = await t.ctx.db
    .selectFrom('su_subscriptions')
    .select('next_cycle_at')
    .where('id', '=', sub.id)
    .executeTakeFirstOrThrow();
  t.clock.set(due.next_cycle_at!);
  const attempt = (await openNextEvent(t.ctx, { subscriptionId: sub.id })) as Attempt;
  expect(attempt).toMatchObject({ subscriptionId: sub.id, cycleNumber: 1 });
  const racing = {
    ...t.ctx,
    processor: {
      ...t.ctx.processor,
      chargeStoredCard: async (request: Parameters<typeof t.ctx.processor.chargeStoredCard>[0]) => {
        // The payer enrols the good card over the hosted page while the old card's charge is at the processor.
        await enrolOn(t, await newCardLink(t, account, sub.id));
        return t.ctx.processor.chargeStoredCard(request);
      },
    },
  };
  await chargeAttempt(racing, attempt);
  return { ...sub, createdDay };
}

async function show(account: TestAccount, id: string) {
  return (
    await t.call(account, { method: 'GET', url: `/api/sususcription/${id}`, sign: true })
  ).json();
}

async function paid(account: TestAccount, id: string, day: string) {
  const res = await t.call(account, {
    method: 'GET',
    url: `/api/sususcriptionv3?date_init=${day}&date_end=${day}`,
    sign: true,
  });
  return res.json()[0].subscriptions.find((s: { id: string }) => s.id === id) as {
    estatus: string;
    paid: Array<Record<string, unknown>>;
  };
}

describe('a new card enrolled while a try on the old card is in flight', () => {
  it('on the last try: the subscription stays active and the cycle is charged on the new card', async () => {
    const a = await t.createAccount('Ultimo intento');
    const sub = await newCardWhileCharging(a, 0);
    expect((await show(a, sub.id)).status).toBe('active');
    const run = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { seconds: 1 },
    });
    expect(run.statusCode, run.body).toBe(200);
    const v3 = await paid(a, sub.id, sub.createdDay);
    expect(v3.estatus).toBe('active');
    expect(v3.paid).toMatchObject([
      { paid_number: 1, status: 'success', try_number: 2, amount_paid: 4300 },
    ]);
    const got = await show(a, sub.id);
    expect(got.logs.status.map((l: { final_status: string }) => l.final_status)).toEqual([
      'register',
      'active',
    ]);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it('on an earlier try: the retry is due at once, not two days later', async () => {
    const a = await t.createAccount('Intento previo');
    const sub = await newCardWhileCharging(a, 3);
    const run = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { seconds: 1 },
    });
    expect(run.statusCode, run.body).toBe(200);
    expect((await paid(a, sub.id, sub.createdDay)).paid).toMatchObject([
      { paid_number: 1, status: 'success', try_number: 2 },
    ]);
  });
});
