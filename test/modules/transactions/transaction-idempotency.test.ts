// Idempotency-Key on POST /api/transaction (supplement §4.5, decision 022): the platform plugin covers it, so a
// merchant retrying a create after a lost answer gets the same transaction, never a second payment order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const body = {
  email: 'payer@example.com',
  order: 'idem-1',
  subject: 'Compra',
  amount: 25000,
  urlnotify: 'https://shop.example/notify',
};

async function post(payload: Record<string, unknown>, key: string, url = '/api/transaction') {
  return t.call(account, {
    method: 'POST',
    url,
    body: payload,
    headers: { 'idempotency-key': key },
  });
}

async function transactionsOf(order: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .select(['id', 'amount_minor'])
    .where('account_id', '=', account.id)
    .where('order', '=', order)
    .execute();
}

describe('POST /api/transaction with Idempotency-Key', () => {
  it('answers a repeat with the same id and url, marked replayed, and creates one row', async () => {
    const first = await post(body, 'create-1');
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The trailing slash and a reordered body with a string amount are the same request.
    const { amount, ...rest } = body;
    const again = await post({ amount: String(amount), ...rest }, 'create-1', '/api/transaction/');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const rows = await transactionsOf('idem-1');
    expect(rows).toEqual([{ id: first.json().id, amount_minor: 25000n }]);
  });

  it('answers 422 idempotency_mismatch when the key comes back with other parameters, and creates nothing', async () => {
    const first = await post({ ...body, order: 'idem-2' }, 'create-2');
    expect(first.statusCode).toBe(200);
    const other = await post({ ...body, order: 'idem-2', amount: 26000 }, 'create-2');
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({
      status: 'failed',
      type: 'Unprocessable Entity',
      message_error: expect.stringContaining('other parameters'),
    });
    expect(await transactionsOf('idem-2')).toEqual([{ id: first.json().id, amount_minor: 25000n }]);
  });

  it('does not claim the key for a request refused by validation, so the corrected retry runs', async () => {
    const refused = await post({ ...body, order: 'idem-5\u0000' }, 'create-5');
    expect(refused.statusCode).toBe(400);
    const loose = await post({ ...body, order: 'idem-5', amount: true }, 'create-5');
    expect(loose.statusCode).toBe(400);
    const fixed = await post({ ...body, order: 'idem-5' }, 'create-5');
    expect(fixed.statusCode).toBe(200);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(await transactionsOf('idem-5')).toHaveLength(1);
  });

  it('without a key, each POST is a new transaction (orders may repeat, decision 033)', async () => {
    const a = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...body, order: 'idem-3' },
    });
    const b = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...body, order: 'idem-3' },
    });
    expect(a.json().id).not.toBe(b.json().id);
    expect(await transactionsOf('idem-3')).toHaveLength(2);
  });

  it('scopes keys to the account: another merchant with the same key gets its own transaction', async () => {
    const other = await t.createAccount('Otra tienda');
    const mine = await post({ ...body, order: 'idem-4' }, 'shared-key');
    const theirs = await t.call(other, {
      method: 'POST',
      url: '/api/transaction',
      body: { ...body, order: 'idem-4' },
      headers: { 'idempotency-key': 'shared-key' },
    });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().id).not.toBe(mine.json().id);
  });
});
