// The input guards hold on every route, not only where a module asked for them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
  const credit = await t.call(account, {
    method: 'POST',
    url: '/api/sandbox/wallet/credit',
    body: { amount: 500_000, currency: 'CLP', reason: 'test funds' },
  });
  expect(credit.statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
});

const payout = {
  email: 'pay@example.com',
  subject: 'Pago proveedor',
  currency: 'CLP',
  order: 'g-1',
  amount: 1000,
  accountbank_name: 'Juan Pérez',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '123456',
};

async function payoutCount(): Promise<number> {
  const rows = await t.ctx.db
    .selectFrom('payouts')
    .select('id')
    .where('account_id', '=', account.id)
    .execute();
  return rows.length;
}

describe('input guards on every route', () => {
  it('refuses loose integers (booleans, hex, exponents) instead of coercing them', async () => {
    for (const amount of [true, '0x10', '1e3', ' 25 ', '12.5']) {
      const res = await t.call(account, {
        method: 'POST',
        url: '/api/wallet/payout',
        body: { ...payout, order: `loose-${String(amount)}`, amount },
        sign: true,
      });
      expect(res.statusCode, String(amount)).toBe(400);
      expect(res.json().errors.amount).toBe('invalid');
    }
    expect(await payoutCount()).toBe(0);
    const ok = await t.call(account, {
      method: 'POST',
      url: '/api/wallet/payout',
      body: { ...payout, order: 'digits', amount: '1000' },
      sign: true,
    });
    expect(ok.json().status).toBe('success');
    expect(await payoutCount()).toBe(1);
  });

  it('refuses text the database cannot store, in any field and in query strings', async () => {
    const res = await t.call(account, {
      method: 'POST',
      url: '/api/wallet/payout',
      body: { ...payout, order: 'nul\u0000order', subject: 'lone \ud800' },
      sign: true,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual({ order: 'invalid', subject: 'invalid' });
    const list = await t.call(account, {
      method: 'GET',
      url: '/api/wallet/list?page=1&per_page=%00',
      sign: true,
    });
    expect(list.statusCode).toBe(400);
    // Signed over the same text, so authentication passes and the guard answers, never a 500.
    const lone = await t.call(account, {
      method: 'POST',
      url: '/api/wallet/withdraw',
      body: { subject: 'x\udc00', currency: 'CLP', order: 'w-1', amount: 1000 },
      sign: true,
    });
    expect(lone.statusCode).toBe(400);
    expect(lone.json().errors).toEqual({ subject: 'invalid' });
  });

  it('answers ids no row can hold with 404, and broken percent-encoding with the seed envelope', async () => {
    const nul = await t.call(account, { method: 'GET', url: '/api/payoutv3/%00', sign: true });
    expect(nul.statusCode).toBe(404);
    expect(nul.json()).toMatchObject({ status: 'failed', type: 'Not Found' });
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/transaction/%ED%A0%80',
      headers: { authorization: `Bearer ${account.publicToken}` },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      status: 'failed',
      type: 'Unprocessable Entity',
      errors: { url: 'invalid' },
    });
  });
});

describe('null in an integer field', () => {
  it('is empty when the field is required (supplement §3 amount:is empty), absent when optional', async () => {
    const required = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'a@b.cl', order: 'n-1', subject: 's', amount: null },
    });
    expect(required.statusCode).toBe(400);
    expect(required.json()).toMatchObject({
      message_error: 'amount:is empty',
      errors: { amount: 'is empty' },
    });
    const optional = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'a@b.cl', order: 'n-2', subject: 's', amount: 100, payment: null },
    });
    expect(optional.statusCode).toBe(200);
    expect(optional.json().status).toBe('pending');
    const nested = await t.call(account, {
      method: 'POST',
      url: '/api/wallet/payout',
      sign: true,
      body: { ...payout, amount: null },
    });
    expect(nested.json().errors).toEqual({ amount: 'is empty' });
  });
});
