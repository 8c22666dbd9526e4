// Decision 988 (what holds): a plan's `amount`, a variable subscription's `amount` and an on-demand charge's
// `amount` take a JSON integer or a string of digits and nothing else (an empty string is not given, decision 755);
// odd spellings are refused and nothing is created or charged. The largest amount accepted (99999999999999) is kept exact through a cycle's charge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { activeSubscription, createPlan, createSuClient, subscribedWithCard } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const odd: readonly unknown[] = [
  true,
  '0x10',
  '1e3',
  ' 100',
  '100.5',
  100.5,
  '-5',
  -5,
  0,
  '',
  '9'.repeat(30),
  1e20,
  [100],
  { value: 100 },
];

describe('amounts of plans, subscriptions and charges', () => {
  it('refuses odd plan amounts and creates no plan', async () => {
    const a = await t.createAccount('Planes raros');
    for (const amount of odd.filter((v) => v !== '')) {
      const res = await t.call(a, {
        method: 'POST',
        url: '/api/suplan',
        sign: true,
        body: { name: 'Raro', amount },
      });
      expect(res.json().status, `${JSON.stringify(amount)}: ${res.body}`).toBe('failed');
    }
    const plans = await t.call(a, { method: 'GET', url: '/api/suplan/plans', sign: true });
    expect(plans.json().plans).toEqual([]);
    // A string of digits is the integer it spells.
    const plan = await createPlan(t, a, { amount: '9990' });
    const got = await t.call(a, { method: 'GET', url: `/api/suplan/${plan}`, sign: true });
    expect(got.json().plans).toMatchObject({ type: 'fixed', amount: 9990 });
    // An empty string is "not given" (decision 755): a consumption plan, never one of CLP 0.
    const blank = await createPlan(t, a, { amount: '' });
    const shown = await t.call(a, { method: 'GET', url: `/api/suplan/${blank}`, sign: true });
    expect(shown.json().plans).toMatchObject({ type: 'consumption', amount: null });
  });

  it('refuses odd amounts of a variable subscription and of an on-demand charge', async () => {
    const a = await t.createAccount('Montos raros');
    const variable = await createPlan(t, a, { type: 'variable' });
    const client = await createSuClient(t, a, { email: 'raro@example.com' });
    for (const amount of odd) {
      const res = await t.call(a, {
        method: 'POST',
        url: '/api/sususcription',
        sign: true,
        body: { plan: variable, client, amount },
      });
      expect(res.json().status, `${JSON.stringify(amount)}: ${res.body}`).toBe('failed');
    }
    const { id } = await activeSubscription(t, a);
    for (const amount of odd) {
      const res = await t.call(a, {
        method: 'POST',
        url: '/api/sutransaction',
        sign: true,
        body: { suscription: id, amount },
      });
      expect(res.json().status, `${JSON.stringify(amount)}: ${res.body}`).toBe('failed');
    }
    const charges = await t.ctx.db
      .selectFrom('su_charges')
      .select('seq')
      .where('subscription_id', '=', id)
      .execute();
    expect(charges).toEqual([]);
  });

  it('charges the largest amount exact on its cycle', async () => {
    const a = await t.createAccount('Monto mayor');
    const plan = await createPlan(t, a, { amount: 99_999_999_999_999 });
    const sub = await subscribedWithCard(t, a, plan);
    const res = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 32 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = await t.ctx.db
      .selectFrom('su_cycles')
      .select(['status', 'amount_minor'])
      .where('subscription_id', '=', sub.id)
      .execute();
    expect(rows.map((r) => [r.status, BigInt(r.amount_minor)])).toEqual([
      ['success', 99_999_999_999_999n],
    ]);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });
});
