import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createTransaction, payByCard, submitUntilRejected } from './helpers.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Tienda Uno');
});
afterAll(async () => {
  await t.close();
});

async function get(url: string, who: TestAccount = account) {
  return t.call(who, { method: 'GET', url });
}

describe('GET /api/transaction/{id}', () => {
  it('reproduces reference §1.2 field for field for a paid transaction, by id, payment_key and transaction_key', async () => {
    const { created } = await payByCard(t, account, {
      order: '1572023402',
      subject: 'Description',
      amount: 98745,
      email: 'johndoe@example.com',
      additional_parameters: { parameters1: 'keyValue', order_ext: 'fff-777' },
    });
    const res = await get(`/api/transaction/${created.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual([
      'status',
      'id',
      'created_at',
      'order',
      'email',
      'subject',
      'amount',
      'payment',
      'nullify',
      'gateway_response',
    ]);
    expect(body).toMatchObject({
      status: 'success',
      id: created.id,
      created_at: '2026-03-10 12:00:00',
      order: '1572023402',
      email: 'johndoe@example.com',
      subject: 'Description',
      amount: '98745',
      nullify: null,
      gateway_response: { status: 'success', message: 'successful transaction' },
    });
    const p = body.payment;
    expect(Object.keys(p)).toEqual([
      'start',
      'end',
      'media',
      'transaction_id',
      'payment_key',
      'transaction_key',
      'deposit_date',
      'verification_key',
      'authorization_code',
      'last_4_digits',
      'installments',
      'card_type',
      'additional_parameters',
      'currency',
    ]);
    expect(p).toMatchObject({
      start: '2026-03-10 12:00:00',
      end: '2026-03-10 12:00:00',
      media: 'Webpay',
      deposit_date: '2026-03-10',
      last_4_digits: '6623',
      installments: 0,
      card_type: 'VN',
      currency: 'CLP',
      additional_parameters: {
        parameters1: 'keyValue',
        order_ext: 'fff-777',
        network: { ip_address: '127.0.0.1' },
      },
    });
    // The reference's OpenAPI keys of every payment, null when the method does not tell them (a card).
    expect(p.additional_parameters).toMatchObject({
      identificador: null,
      banco: null,
      numero_cuenta: null,
    });
    expect(Number.isInteger(p.transaction_id)).toBe(true);
    expect(p.payment_key).toMatch(/^pr[0-9a-f]{17}$/);
    expect(p.transaction_key).toMatch(/^\d{16}$/);
    expect(p.verification_key).toMatch(/^[0-9a-f]{32}$/);
    expect(p.authorization_code).toMatch(/^\d{6}$/);
    for (const key of [p.payment_key, p.transaction_key, String(p.transaction_id)]) {
      expect((await get(`/api/transaction/${key}`)).json().id).toBe(created.id);
    }
  });

  it('shows a pending transaction with payment null and a rejected one with its gateway message', async () => {
    const pending = await createTransaction(t, account);
    const body = (await get(`/api/transaction/${pending.id}`)).json();
    expect(body).toMatchObject({
      status: 'pending',
      payment: null,
      nullify: null,
      gateway_response: { status: 'pending', message: 'pending transaction' },
    });
    const rejected = await createTransaction(t, account);
    // The checkout lets the payer retry a declined card (issue 15 point 5): the last allowed try rejects it.
    await submitUntilRejected(t, rejected.url, 1, {
      card_number: '5186059559590568',
      expiry: '12/30',
      cvv: '123',
    });
    const r = (await get(`/api/transaction/${rejected.id}`)).json();
    expect(r.status).toBe('rejected');
    expect(r.gateway_response).toEqual({ status: 'rejected', message: 'Rechazo de transacción.' });
    expect(r.payment).toMatchObject({
      media: 'Webpay',
      authorization_code: null,
      deposit_date: null,
      last_4_digits: '0568',
      additional_parameters: { identificador: null, banco: null, numero_cuenta: null },
    });
  });

  it("answers 404 for an unknown id and for another account's transaction", async () => {
    const other = await t.createAccount('Otra');
    const mine = await createTransaction(t, account);
    for (const [url, who] of [
      ['/api/transaction/trxdoesnotexist', account],
      [`/api/transaction/${mine.id}`, other],
    ] as const) {
      const res = await get(url, who);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
    }
    expect((await get(`/api/transaction/${'x'.repeat(31)}`)).statusCode).toBe(400);
  });
});

describe('GET /api/transaction', () => {
  it("lists today's transactions with numeric ids and int amounts, filtered by status flags and paged", async () => {
    const who = await t.createAccount('Lista');
    const paid = await payByCard(t, who, { amount: 1000 });
    await createTransaction(t, who, { amount: 2000 });
    await payByCard(
      t,
      who,
      { amount: 3000 },
      { card_number: '5186059559590568', expiry: '12/30', cvv: '123' },
    );
    const all = (await get('/api/transaction', who)).json();
    expect(Object.keys(all)).toEqual(['transaction']);
    expect(all.transaction).toHaveLength(3);
    const first = all.transaction.find((x: { amount: number }) => x.amount === 1000);
    expect(Object.keys(first)).toEqual([
      'id',
      'status',
      'created_at',
      'email',
      'amount',
      'order',
      'subject',
      'payment',
      'nullify',
      'gateway_response',
    ]);
    expect(first.id).toMatch(/^\d+$/);
    expect(first.payment.additional_parameters.network).toBeUndefined();
    expect(first.payment.additional_parameters).toMatchObject({
      identificador: null,
      banco: null,
      numero_cuenta: null,
    });
    expect(first.payment.transaction_id).toBe(Number(first.id));
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select('number')
      .where('id', '=', paid.created.id)
      .executeTakeFirstOrThrow();
    expect(first.id).toBe(String(row.number));
    const success = (await get('/api/transaction?success=true', who)).json();
    expect(success.transaction.map((x: { amount: number }) => x.amount)).toEqual([1000]);
    const two = (await get('/api/transaction?pending=true&rejected=true', who)).json();
    expect(two.transaction.map((x: { amount: number }) => x.amount).sort()).toEqual([2000, 3000]);
    const page2 = (await get('/api/transaction?page=2&per_page=2', who)).json();
    expect(page2.transaction).toHaveLength(1);
    expect(
      (await get('/api/transaction?date_init=2026-03-10&date_end=2026-03-10', who)).json()
        .transaction,
    ).toHaveLength(3);
  });

  it('answers the no-records body with HTTP 200', async () => {
    const res = await get('/api/transaction?date_init=2026-03-01&date_end=2026-03-02');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'failed',
      message_error: 'there are no records. filter date_init=2026-03-01,date_end=2026-03-02',
    });
    const empty = await t.createAccount('Vacía');
    expect((await get('/api/transaction', empty)).json()).toEqual({
      status: 'failed',
      message_error: 'there are no records. filter date_init=2026-03-10,date_end=2026-03-10',
    });
  });

  it('rejects bad dates, reversed ranges, bad flags and per_page above 4000', async () => {
    expect((await get('/api/transaction?date_init=10-03-2026')).json().errors).toEqual({
      date_init: 'invalid',
    });
    expect(
      (await get('/api/transaction?date_init=2026-03-10&date_end=2026-03-01')).json().errors,
    ).toEqual({ date_init: 'invalid' });
    expect((await get('/api/transaction?success=yes')).json().errors).toEqual({
      success: 'invalid',
    });
    const big = await get('/api/transaction?per_page=4001');
    expect(big.statusCode).toBe(400);
    expect(big.json().errors).toEqual({ per_page: 'too large' });
    expect((await t.call(null, { method: 'GET', url: '/api/transaction' })).statusCode).toBe(401);
  });
});
