import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { fund, payout } from './wallet-helpers.ts';

let t: TestApp;
// 2023-06-10 00:07:02 UTC is 2023-06-09 20:07:02 in Santiago, the sample's created_at.
beforeAll(async () => {
  t = await startTestApp({ clockStart: '2023-06-10T00:07:02Z' });
});
afterAll(async () => {
  await t.close();
});

describe('GET /api/wallet, /api/wallet/list, /api/wallet/{id}, /api/payout/{id}', () => {
  it('reproduces the reference wallet sample field for field', async () => {
    const a = await t.createAccount();
    await fund(t, a, 1766 + 3680);
    const created = (
      await payout(t, a, {
        order: 'tme5',
        subject: 'tme5 asunto',
        amount: 3680,
        email: 'test@test.com',
        phone: '111111111',
        accountbank_rut: '111111111',
        accountbank_name: 'test',
        accountbank_type: 1,
        accountbank_num: '123123123',
        accountbank_sbif: '0001',
      })
    ).json();
    const res = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const movementId = created.identifier_wallet;
    expect(body).toEqual({
      status: 'success',
      current_id: movementId,
      amount_available: 1766,
      currency: 'CLP',
      filter: { page: 1, per_page: 1000, currency: 'CLP', id: movementId },
      wallet_movements: [
        {
          id: movementId,
          order: 'tme5',
          subject: 'tme5 asunto',
          created_at: '2023-06-09 20:07:02',
          income_expense: 'expense',
          status: 'current',
          amount: '3680',
          actual_amount: '1766',
          origin_liquidation: null,
          currency: 'CLP',
          payout: {
            id: created.identifier_payout,
            phone: '111111111',
            email: 'test@test.com',
            subject: 'tme5 asunto',
            amount: '3680',
            accountbank_rut: '111111111',
            accountbank_name: 'test',
            accountbank_type: 1,
            accountbank_num: 123123123,
            accountbank_sbif: '0001',
            status: 'pending',
            update_at: '2023-06-09 20:07:02',
          },
        },
        expect.objectContaining({
          income_expense: 'income',
          amount: '5446',
          actual_amount: '5446',
          payout: null,
          origin_liquidation: null,
        }),
      ],
    });
    expect(Object.keys(body)).toEqual([
      'status',
      'current_id',
      'amount_available',
      'currency',
      'filter',
      'wallet_movements',
    ]);
    // The movement by id answers the same row, its payout joined in.
    const byId = await t.call(a, { method: 'GET', url: `/api/wallet/${movementId}`, sign: true });
    expect(byId.json().wallet_movements).toEqual([body.wallet_movements[0]]);
    expect(Object.keys(body.wallet_movements[0])).toEqual([
      'id',
      'order',
      'subject',
      'created_at',
      'income_expense',
      'status',
      'amount',
      'actual_amount',
      'origin_liquidation',
      'currency',
      'payout',
    ]);

    const one = await t.call(a, {
      method: 'GET',
      url: `/api/payout/${created.identifier_payout}`,
      sign: true,
    });
    expect(one.json()).toEqual({
      payout: {
        id: created.identifier_payout,
        phone: '111111111',
        email: 'test@test.com',
        subject: 'tme5 asunto',
        amount: '3680',
        accountbank_rut: '111111111',
        accountbank_name: 'test',
        accountbank_type: 1,
        accountbank_num: 123123123,
        accountbank_sbif: '0001',
        status: 'pending',
        update_at: '2023-06-09 20:07:02',
        origin_wallet: movementId,
      },
    });
    expect(Object.keys(one.json().payout).at(-1)).toBe('origin_wallet');
    const v3 = (
      await t.call(a, {
        method: 'GET',
        url: `/api/payoutv3/${created.identifier_payout}`,
        sign: true,
      })
    ).json();
    expect(v3.payout).toEqual({ ...one.json().payout, reason_rejection: '' });
  });

  it('keeps an account number that an integer would change as a string', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const lead = (
      await payout(t, a, { order: 'n1', amount: 1111, accountbank_num: '000123' })
    ).json();
    const dashed = (
      await payout(t, a, { order: 'n2', amount: 1111, accountbank_num: '12-345-6' })
    ).json();
    const long = (
      await payout(t, a, {
        order: 'n3',
        amount: 1111,
        accountbank_sbif: '0037',
        accountbank_num: '12345678901234567890',
      })
    ).json();
    const num = async (id: string) =>
      (await t.call(a, { method: 'GET', url: `/api/payout/${id}`, sign: true })).json().payout
        .accountbank_num;
    expect(await num(lead.identifier_payout)).toBe('000123');
    expect(await num(dashed.identifier_payout)).toBe('12-345-6');
    expect(await num(long.identifier_payout)).toBe('12345678901234567890');
  });

  it('pages movements newest first and echoes the filter', async () => {
    const a = await t.createAccount();
    for (let i = 0; i < 5; i++) await fund(t, a, 100 + i);
    const page2 = (
      await t.call(a, { method: 'GET', url: '/api/wallet/list?page=2&per_page=2', sign: true })
    ).json();
    expect(page2.filter).toEqual({ page: 2, per_page: 2, currency: 'CLP', id: page2.current_id });
    expect(page2.wallet_movements.map((m: { amount: string }) => m.amount)).toEqual(['102', '101']);
    expect(page2.amount_available).toBe(510);
    const defaults = (
      await t.call(a, { method: 'GET', url: '/api/wallet/list', sign: true })
    ).json();
    expect(defaults.filter).toMatchObject({ page: 1, per_page: 1000 });
    expect(defaults.wallet_movements).toHaveLength(5);
    // A later page's current_id is still the wallet's newest movement, not the page's first.
    expect(page2.current_id).toBe(defaults.wallet_movements[0].id);
    const beyond = (
      await t.call(a, { method: 'GET', url: '/api/wallet/list?page=9&per_page=4000', sign: true })
    ).json();
    expect(beyond.wallet_movements).toEqual([]);
  });

  it('refuses pages over 4000 records, bad pages and unknown currencies', async () => {
    const a = await t.createAccount();
    for (const [url, field, problem] of [
      ['/api/wallet/list?per_page=4001', 'per_page', 'too large'],
      ['/api/wallet/list?page=0', 'page', 'too small'],
      ['/api/wallet/list?page=x', 'page', 'invalid'],
      ['/api/wallet?currency=usd', 'currency', 'invalid'],
    ] as const) {
      const res = await t.call(a, { method: 'GET', url, sign: true });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual({ [field]: problem });
    }
  });

  it('shows one movement by id and 404s an unknown or foreign one', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await fund(t, a, 700);
    await fund(t, a, 300);
    const list = (await t.call(a, { method: 'GET', url: '/api/wallet/list', sign: true })).json();
    const older = list.wallet_movements[1];
    const one = (
      await t.call(a, { method: 'GET', url: `/api/wallet/${older.id}`, sign: true })
    ).json();
    expect(one).toEqual({
      ...list,
      filter: { page: 1, per_page: 1, currency: 'CLP', id: older.id },
      wallet_movements: [older],
    });
    for (const [who, id] of [
      [a, 'wa0000000000000000'],
      [b, older.id],
    ] as const) {
      const res = await t.call(who, { method: 'GET', url: `/api/wallet/${id}`, sign: true });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
    }
  });

  it('answers an empty wallet with a zero balance', async () => {
    const a = await t.createAccount();
    const body = (await t.call(a, { method: 'GET', url: '/api/wallet', sign: true })).json();
    expect(body).toEqual({
      status: 'success',
      current_id: '',
      amount_available: 0,
      currency: 'CLP',
      filter: { page: 1, per_page: 1000, currency: 'CLP', id: '' },
      wallet_movements: [],
    });
  });

  it('requires Sign on every wallet query', async () => {
    const a = await t.createAccount();
    for (const url of [
      '/api/wallet',
      '/api/wallet/list',
      '/api/wallet/wa1',
      '/api/payout/mor1',
      '/api/payoutv3/mor1',
    ]) {
      const res = await t.call(a, { method: 'GET', url });
      expect(res.statusCode).toBe(401);
      expect(res.json().message_error).toBe('waiting sign');
    }
  });
});
