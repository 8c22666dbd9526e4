// A client's mistake never yields a 500: every odd input to the transaction API and the hosted checkout gets the
// seed's JSON error (or a 4xx page) and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, linkParams, pathOf } from './helpers.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const base = { email: 'payer@example.com', order: 'bad-1', subject: 'Compra', amount: 25000 };

async function snapshot() {
  const count = async (table: 'transactions' | 'notifications' | 'postings') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const rows = await t.ctx.db
    .selectFrom('transactions')
    .select(['id', 'status', 'attempt_id', 'checkout_opened_at', 'updated_at'])
    .orderBy('id')
    .execute();
  return {
    transactions: await count('transactions'),
    notifications: await count('notifications'),
    postings: await count('postings'),
    rows,
  };
}

describe('POST /api/transaction with text the database cannot store', () => {
  it.each([
    [{ order: 'a\u0000b' }, { order: 'invalid' }],
    [{ subject: 'Polera\u0000' }, { subject: 'invalid' }],
    [{ order: 'lone \ud800 surrogate' }, { order: 'invalid' }],
    [{ marketplace: 'm\u0000' }, { marketplace: 'invalid' }],
    [{ urlnotify: 'https://shop.example/\u0000' }, { urlnotify: 'invalid' }],
    [{ additional_parameters: { note: 'a\u0000b' } }, { 'additional_parameters.note': 'invalid' }],
    [{ additional_parameters: { note: '\udc00' } }, { 'additional_parameters.note': 'invalid' }],
    [
      { additional_parameters: { deep: { list: ['ok', 'x\u0000'] } } },
      { 'additional_parameters.deep.list.1': 'invalid' },
    ],
    [{ additional_parameters: { 'k\u0000': 'v' } }, { additional_parameters: 'invalid' }],
    [
      { additional_parameters: { payer_bank: '0001\u0000' } },
      { 'additional_parameters.payer_bank': 'invalid' },
    ],
  ])('refuses %j with 400 %j', async (extra, errors) => {
    const before = await snapshot();
    const res = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...base, ...extra },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Unprocessable Entity', errors });
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    [{ amount: true }, { amount: 'invalid' }],
    [{ amount: '0x10' }, { amount: 'invalid' }],
    [{ amount: '1e3' }, { amount: 'invalid' }],
    [{ amount: ' 25000 ' }, { amount: 'invalid' }],
    [{ amount: '' }, { amount: 'invalid' }],
    [{ payment: true }, { payment: 'invalid' }],
    [{ payment: '0x1' }, { payment: 'invalid' }],
  ])(
    'refuses the loose integer %j (supplement §1.2: a number or a string of digits)',
    async (extra, errors) => {
      const before = await snapshot();
      const res = await t.call(account, {
        method: 'POST',
        url: '/api/transaction',
        body: { ...base, ...extra },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 'failed', type: 'Unprocessable Entity', errors });
      expect(await snapshot()).toEqual(before);
    },
  );

  it('still takes an amount as a string of digits, and asks for authentication before looking at the body', async () => {
    const ok = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...base, amount: '25000', payment: '1' },
    });
    expect(ok.statusCode).toBe(200);
    const anonymous = await t.call(null, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...base, amount: true, order: 'x\u0000' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses an expiry beyond year 9999 (the database would refuse the timestamp)', async () => {
    const before = await snapshot();
    for (const expired of ['9999-12-31 23:59:59', '9999-12-31 21:00:00']) {
      const res = await t.call(account, {
        method: 'POST',
        url: '/api/transaction',
        body: { ...base, expired, urlreturn: 'https://shop.example/r' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual({ expired: 'invalid' });
    }
    expect(await snapshot()).toEqual(before);
    const far = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...base, expired: '9999-12-31 20:59:59', urlreturn: 'https://shop.example/r' },
    });
    expect(far.statusCode).toBe(200);
  });

  it('refuses nesting beyond 64 levels in additional_parameters', async () => {
    let deep: Record<string, unknown> = { v: 'x' };
    for (let i = 0; i < 70; i++) deep = { d: deep };
    const res = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...base, additional_parameters: deep },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().status).toBe('failed');
  });
});

describe('GET /api/transaction/{id} and the list with odd input', () => {
  it.each(['%00', 'trx%00abc', '100001%00'])('answers 404 for the id %s', async (id) => {
    const res = await t.call(account, { method: 'GET', url: `/api/transaction/${id}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
  });

  it.each(['-1', '0', '999999999999999999', '9999999999999999999', 'abc'])(
    'answers 404 for the id %s',
    async (id) => {
      const res = await t.call(account, { method: 'GET', url: `/api/transaction/${id}` });
      expect(res.statusCode).toBe(404);
      expect(res.json().status).toBe('failed');
    },
  );

  it.each([
    ['page=0', { page: 'too small' }],
    ['page=-1', { page: 'too small' }],
    ['page=abc', { page: 'invalid' }],
    ['page=1&page=2', { page: 'invalid' }],
    ['per_page=4001', { per_page: 'too large' }],
    ['per_page=0', { per_page: 'too small' }],
    ['per_page=99999999999999999999', { per_page: 'too large' }],
    ['date_init=2026-13-45', { date_init: 'invalid' }],
    ['date_init=2026-02-31&date_end=2026-02-31', { date_init: 'invalid' }],
    ['date_init=0000-00-00', { date_init: 'invalid' }],
    ['date_end=9999-12-31', { date_end: 'invalid' }],
    ['date_init=%00', { date_init: 'invalid' }],
    ['date_init=2026-03-10%00', { date_init: 'invalid' }],
    ['page=1e3', { page: 'invalid' }],
    ['page=true', { page: 'invalid' }],
    ['per_page=0x10', { per_page: 'invalid' }],
    ['per_page=%2010', { per_page: 'invalid' }],
    ['success=yes', { success: 'invalid' }],
    ['success=true&success=false', { success: 'invalid' }],
  ])('answers 400 for ?%s', async (query, errors) => {
    const res = await t.call(account, { method: 'GET', url: `/api/transaction?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Unprocessable Entity', errors });
  });

  it('answers the last page far beyond the data with the no-records body', async () => {
    const res = await t.call(account, {
      method: 'GET',
      url: '/api/transaction?page=1000000&per_page=4000',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('failed');
  });
});

describe('hosted checkout with odd links and forms', () => {
  it('answers odd query strings with a 4xx page and changes nothing', async () => {
    const created = await createTransaction(t, account, { order: 'bad-checkout' });
    const path = pathOf(created.url);
    const { id, valid } = linkParams(created.url);
    const before = await snapshot();
    const cases: Array<[string, number]> = [
      ['/gateway/cobro', 400],
      ['/gateway/cobro?id=', 400],
      ['/gateway/cobro?%zz', 400],
      [`${path}&method=abc`, 400],
      [`${path}&method=0`, 400],
      [`${path}&method=1&method=2`, 400],
      [`${path}&method=99999999999999999999`, 400],
      [`${path}&id=${id}`, 400],
      [`/gateway/cobro?id=${id}&valid=${valid}&valid=${valid}`, 400],
      [`/gateway/cobro?id=${id}%00&valid=${valid}`, 404],
      ['/gateway/cobro?id=%00&valid=%00', 404],
      [`/gateway/cobro?id=${id}&valid=${valid.toUpperCase()}`, 404],
      [`/gateway/cobro?id=${'x'.repeat(41)}&valid=${valid}`, 400],
    ];
    for (const [url, status] of cases) {
      const res = await t.app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, status]);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers odd or missing form fields with a 4xx page, charging nothing', async () => {
    const created = await createTransaction(t, account, {
      order: 'bad-form',
      urlnotify: 'https://shop.example/n',
    });
    const { id, valid } = linkParams(created.url);
    // Opening the page once sets checkout_opened_at, which the posts below must not change either.
    await t.app.inject({ method: 'GET', url: `${pathOf(created.url)}&method=1` });
    const before = await snapshot();
    const link = `id=${id}&valid=${valid}`;
    const visa = new URLSearchParams(approvedVisa).toString();
    const forms: Array<[string, number]> = [
      ['', 400],
      [`id=${id}`, 400],
      [link, 400],
      [`${link}&method=abc&${visa}`, 400],
      [`${link}&method=1`, 422],
      [`${link}&method=1&card_number=${'9'.repeat(65)}&expiry=12/30&cvv=123`, 400],
      [`${link}&method=1&${visa}&card_number=4051885600446623`, 400],
      [`${link}&method=1&card_number=%00&expiry=%00&cvv=%00`, 422],
      [`${link}&method=1&card_number=4051885600446623&expiry=99/9999&cvv=123`, 422],
      [`${link}&method=101&${visa}&installments=abc`, 422],
      [`${link}&method=101&${visa}&installments=99`, 422],
      [`${link}&method=4&rut=%00&password=%00&bank=%00`, 422],
      [`${link}&method=4&rut=11.111.111-1&password=123&bank=${'x'.repeat(64)}`, 422],
      ['%zz=%zz', 400],
      ['id[]=1', 400],
      [`id=${id}&valid=${'0'.repeat(32)}&method=1&${visa}`, 404],
    ];
    for (const [payload, status] of forms) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/gateway/cobro',
        payload,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect([payload, res.statusCode]).toEqual([payload, status]);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    for (const [type, payload] of [
      ['text/plain', 'x'],
      ['multipart/form-data; boundary=x', '--x--'],
      ['application/json', '{"id":'],
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/gateway/cobro',
        payload: payload!,
        headers: { 'content-type': type! },
      });
      expect([type, res.statusCode]).toEqual([type, 400]);
    }
    const huge = await t.app.inject({
      method: 'POST',
      url: '/gateway/cobro',
      payload: `${link}&method=1&password=${'p'.repeat(9000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(huge.statusCode).toBe(400);
    expect(await snapshot()).toEqual(before);
  });
});
