import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createPlan } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const referencePlan = {
  name: 'Test plan',
  description: 'Test Plan',
  url_notify_suscription: 'https://merchant.example/notify-suscription',
  url_notify_payment: 'https://merchant.example/notify-payment',
  url_success_payment: 'https://merchant.example/ok',
  url_failed_payment: 'https://merchant.example/failed',
};

describe('POST /api/suplan and GET /api/suplan/{id} (reference §8.2, §7.13b; decision 100)', () => {
  it("creates a plan from the reference's fields alone: a consumption plan, answered under the plural key `plans`", async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/suplan/',
      sign: true,
      body: referencePlan,
    });
    expect(res.statusCode).toBe(200);
    const { id } = res.json();
    expect(res.json()).toEqual({ status: 'success', id });
    expect(id).toMatch(/^pl[0-9a-f]{20}$/);
    const got = await t.call(merchant, { method: 'GET', url: `/api/suplan/${id}`, sign: true });
    expect(got.json()).toEqual({
      status: 'success',
      plans: {
        id,
        status: 'active',
        name: 'Test plan',
        code: '',
        description: 'Test Plan',
        url_notify_payment: 'https://merchant.example/notify-payment',
        url_notify_suscription: 'https://merchant.example/notify-suscription',
        total_suscription: 0,
        total_suscription_active: 0,
        type: 'consumption',
        amount: null,
        currency: 'CLP',
        interval: 'month',
        interval_count: 1,
        trial_days: 0,
        retries_max: 3,
      },
    });
  });

  it('takes the pricing extension with loose types: a fixed monthly plan of 9990 CLP', async () => {
    const id = await createPlan(t, merchant, {
      name: 'Gold',
      code: 1,
      amount: '9990',
      interval: 'month',
      interval_count: '1',
      trial_days: '7',
      retries_max: 2,
    });
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/suplan/${id}/`, sign: true })
    ).json();
    expect(got.plans).toMatchObject({
      code: '1',
      type: 'fixed',
      amount: 9990,
      currency: 'CLP',
      interval: 'month',
      interval_count: 1,
      trial_days: 7,
      retries_max: 2,
    });
    const variable = await createPlan(t, merchant, {
      name: 'Variable',
      type: 'variable',
      interval: 'week',
    });
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/suplan/${variable}`, sign: true })).json()
        .plans,
    ).toMatchObject({ type: 'variable', amount: null, interval: 'week' });
  });

  it('refuses inconsistent pricing and bad fields, writing nothing', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
      [{ name: 'x', type: 'fixed' }, { amount: 'is empty' }],
      [
        { name: 'x', type: 'consumption', amount: 100 },
        { amount: 'not allowed on a consumption plan' },
      ],
      [{ name: 'x', amount: 100, currency: 'USD' }, { currency: 'invalid' }],
      [{ name: 'x', amount: 0 }, { amount: 'too small' }],
      [{ name: 'x', amount: 12.5 }, { amount: 'invalid' }],
    ];
    for (const [body, errors] of cases) {
      const res = await t.call(merchant, { method: 'POST', url: '/api/suplan', sign: true, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors, JSON.stringify(body)).toEqual(errors);
    }
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/suplan',
      sign: true,
      body: { name: 'n'.repeat(21), interval: 'fortnight', url_notify_payment: 'u'.repeat(241) },
    });
    expect(Object.keys(res.json().errors).sort()).toEqual([
      'interval',
      'name',
      'url_notify_payment',
    ]);
    const unknown = await t.call(merchant, {
      method: 'GET',
      url: '/api/suplan/pl00000000000000000000',
      sign: true,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('GET /api/suplan/plans lists every plan of the account, oldest first', async () => {
    const lister = await t.createAccount('Lister');
    const a = await createPlan(t, lister, { name: 'A' });
    const b = await createPlan(t, lister, { name: 'B', amount: 1000 });
    const res = await t.call(lister, { method: 'GET', url: '/api/suplan/plans/', sign: true });
    expect(res.json().status).toBe('success');
    expect(res.json().plans.map((p: { id: string }) => p.id)).toEqual([a, b]);
    const unsigned = await t.call(lister, { method: 'GET', url: '/api/suplan/plans' });
    expect(unsigned.json().message_error).toBe('waiting sign');
  });
});
