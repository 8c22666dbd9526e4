import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createTransaction } from './helpers.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { insertTransaction } from '../../../src/modules/transactions/transaction-insert.ts';
import { newId } from '../../../src/platform/ids/ids.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Tienda Uno');
});
afterAll(async () => {
  await t.close();
});

const base = { email: 'payer@example.com', order: '5696', subject: 'Cliente Test', amount: 25000 };

async function post(body: unknown, url = '/api/transaction') {
  return t.call(account, { method: 'POST', url, body });
}

describe('a sale no payer could pay (decision 451)', () => {
  it('refuses a currency without a method the checkout takes, and a fixed method it does not take, writing nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('account_id', '=', account.id)
      .execute();
    for (const body of [
      { ...base, currency: 'VES' },
      { ...base, currency: 'ves', payment: 17 },
      { ...base, currency: 'VES', payment: 99 },
    ]) {
      const res = await post(body);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'failed', type: 'currency_not_payable' });
    }
    for (const payment of [6, 9, 23]) {
      expect((await post({ ...base, payment })).json()).toEqual({
        status: 'failed',
        type: 'payment_method_unavailable',
        message_error: `payment method ${payment} (CLP) cannot be taken by this account: no processor is configured for it; GET /api/paymentmethods lists what it can take`,
      });
    }
    expect((await post({ ...base, currency: 'PEN', payment: 21 })).json()).toMatchObject({
      status: 'failed',
      type: 'payment_method_unavailable',
    });
    expect(
      await t.ctx.db
        .selectFrom('transactions')
        .select('id')
        .where('account_id', '=', account.id)
        .execute(),
    ).toEqual(before);
    // What the listing shows can be created: PEN cards.
    expect((await post({ ...base, currency: 'PEN', payment: 25 })).json()).toMatchObject({
      status: 'pending',
    });
  });
});

describe('POST /api/transaction', () => {
  it('creates a pending transaction with a checkout url carrying an unforgeable token (with and without trailing slash)', async () => {
    for (const url of ['/api/transaction', '/api/transaction/']) {
      const res = await post(base, url);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body)).toEqual(['status', 'id', 'url']);
      expect(body.status).toBe('pending');
      expect(body.id).toMatch(/^trx[0-9a-f]{17}$/);
      expect(body.url).toMatch(
        new RegExp(
          `^http://127\\.0\\.0\\.1:8080/gateway/cobro\\?id=${body.id}&valid=[0-9a-f]{32}$`,
        ),
      );
    }
  });

  it('accepts every field of reference §1.1 and stores currency CLP by default', async () => {
    const membership = await createMembership(t, account, '20', [
      [await createClient(t, account), '80'],
    ]);
    const res = await post({
      ...base,
      amount: '25000',
      currency: 'clp',
      payment: 1,
      expired: '2026-03-10 13:00:00',
      urlreturn: 'https://shop.example/return?o=5696',
      urlnotify: 'https://shop.example/notify',
      marketplace: membership.token,
      additional_parameters: { parameters1: 'keyValue', order_ext: 'fff-777' },
      unknown_field: 'dropped',
    });
    expect(res.statusCode).toBe(200);
    const row = await t.ctx.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row.currency).toBe('CLP');
    expect(row.amount_minor).toBe(25000n);
    expect(row.payment).toBe(1);
    expect(row.extension).toBe('marketplace');
    expect(row.extension_ref).toBe(membership.id);
    expect(row.additional_parameters).toEqual({ parameters1: 'keyValue', order_ext: 'fff-777' });
    const plain = await createTransaction(t, account);
    const plainRow = await t.ctx.db
      .selectFrom('transactions')
      .select(['currency', 'payment'])
      .where('id', '=', plain.id)
      .executeTakeFirstOrThrow();
    expect(plainRow).toEqual({ currency: 'CLP', payment: null });
  });

  it('reports missing and invalid fields in the seed shape', async () => {
    const res = await post({ subject: '', amount: 'abc', email: 'not-an-email' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.status).toBe('failed');
    expect(body.type).toBe('Unprocessable Entity');
    expect(body.errors).toMatchObject({
      order: 'is empty',
      subject: 'is empty',
      amount: 'invalid',
      email: 'invalid',
    });
  });

  it('enforces the seed lengths and the 14-digit amount', async () => {
    const res = await post({
      ...base,
      order: 'x'.repeat(41),
      email: `${'a'.repeat(46)}@b.cl`,
      amount: 100_000_000_000_000,
      marketplace: 'm'.repeat(71),
    });
    expect(res.json().errors).toEqual({
      order: 'too long',
      email: 'too long',
      amount: 'too large',
      marketplace: 'too long',
    });
    expect((await post({ ...base, amount: 0 })).json().errors).toEqual({ amount: 'too small' });
  });

  it('rejects an unknown currency and a payment code the currency does not have', async () => {
    expect((await post({ ...base, currency: 'usd' })).json().errors).toEqual({
      currency: 'invalid',
    });
    expect((await post({ ...base, payment: 21 })).json().errors).toEqual({ payment: 'invalid' });
    expect((await post({ ...base, payment: 99 })).statusCode).toBe(200);
  });

  it('applies the expired rules: format, more than 5 minutes ahead in Santiago time, urlreturn required', async () => {
    // The test clock is 2026-03-10 15:00Z = 12:00 in Santiago (UTC-3).
    expect(
      (
        await post({ ...base, expired: '2026-03-10 12:04:59', urlreturn: 'https://s.example/r' })
      ).json().errors,
    ).toEqual({ expired: 'invalid' });
    // Another spelling is told the one format taken, not `too long` or `invalid` (issue 32).
    for (const expired of [
      '10-03-2026 13:00:00',
      '2026-12-01T10:00:00Z',
      '2026-12-01T10:00:00.000-03:00',
      '2026-12-01',
    ]) {
      const res = await post({ ...base, expired, urlreturn: 'https://s.example/r' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        message_error: 'expired:format YYYY-MM-DD HH:MM:SS',
        errors: { expired: 'format YYYY-MM-DD HH:MM:SS' },
      });
    }
    expect((await post({ ...base, expired: '2026-03-10 12:06:00' })).json().errors).toEqual({
      urlreturn: 'is empty',
    });
    expect(
      (await post({ ...base, expired: '2026-03-10 12:06:00', urlreturn: 'https://s.example/r' }))
        .statusCode,
    ).toBe(200);
  });

  it('requires additional_parameters.payer_rut for payment 4, 19 and 26, and checks RUT and bank', async () => {
    for (const payment of [4, 19, 26]) {
      expect((await post({ ...base, payment })).json().errors).toEqual({
        'additional_parameters.payer_rut': 'is empty',
      });
    }
    expect(
      (
        await post({ ...base, payment: 4, additional_parameters: { payer_rut: '111111112' } })
      ).json().errors,
    ).toEqual({ 'additional_parameters.payer_rut': 'invalid' });
    expect(
      (
        await post({
          ...base,
          payment: 19,
          additional_parameters: { payer_rut: '111111111', payer_bank: '9999' },
        })
      ).json().errors,
    ).toEqual({ 'additional_parameters.payer_bank': 'invalid' });
    expect(
      (
        await post({
          ...base,
          payment: 26,
          additional_parameters: { payer_rut: '11.111.111-1', payer_bank: '0001' },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('rejects urls that are not http(s) and additional_parameters over 4000 characters', async () => {
    expect(
      (await post({ ...base, urlreturn: 'javascript:alert(1)', urlnotify: 'ftp://x' })).json()
        .errors,
    ).toEqual({ urlreturn: 'invalid', urlnotify: 'invalid' });
    expect(
      (await post({ ...base, additional_parameters: { big: 'x'.repeat(4000) } })).json().errors,
    ).toEqual({ additional_parameters: 'too long' });
  });

  it("stamps the row with the account's sandbox time, from the kept offset, the checks' reading or the INSERT itself", async () => {
    const moved = await t.createAccount('Tienda Adelantada');
    const offsetMs = 3 * 86_400_000 + 1234;
    expect(await t.ctx.accountClock.advance(moved.id, offsetMs, t.ctx.db)).toBe(offsetMs);
    const stampOf = async (who: TestAccount, body: Record<string, unknown>) => {
      const res = await t.call(who, { method: 'POST', url: '/api/transaction', body });
      expect(res.statusCode, res.body).toBe(200);
      const row = await t.ctx.db
        .selectFrom('transactions')
        .select(['created_at', 'updated_at'])
        .where('id', '=', res.json().id)
        .executeTakeFirstOrThrow();
      expect(row.updated_at.getTime()).toBe(row.created_at.getTime());
      return row.created_at.getTime();
    };
    const now = t.clock.now().getTime();
    expect(await stampOf(account, base)).toBe(now);
    expect(await stampOf(moved, base)).toBe(now + offsetMs);
    // `expired` makes the checks read the account's clock, and that reading is the row's time.
    const withExpiry = {
      ...base,
      expired: '2027-01-01 00:00:00',
      urlreturn: 'https://shop.example/return',
    };
    expect(await stampOf(moved, withExpiry)).toBe(now + offsetMs);
    // Without a live change feed nothing is kept and the INSERT adds the offset itself (cobro_account_offset_ms).
    const id = newId('trx', 17);
    await insertTransaction(t.ctx, t.ctx.db, {
      id,
      accountId: moved.id,
      email: 'payer@example.com',
      order: 'direct',
      subject: 'S',
      amountMinor: 1000n,
      currency: 'CLP',
      payment: null,
      expiresAt: null,
      urlreturn: null,
      urlnotify: null,
      additionalParametersJson: null,
      extension: null,
      extensionRef: null,
      paymentKey: newId('pr', 17),
      transactionKey: '1000000000000001',
      verificationKey: 'ab',
      createdAt: null,
    });
    const direct = await t.ctx.db
      .selectFrom('transactions')
      .select(['created_at', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(direct.created_at.getTime()).toBe(now + offsetMs);
    expect(direct.updated_at.getTime()).toBe(now + offsetMs);
  });

  it('writes nothing when refused and needs a valid token', async () => {
    const before = await t.ctx.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    await post({ ...base, currency: 'usd' });
    const after = await t.ctx.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
    const res = await t.call(null, { method: 'POST', url: '/api/transaction', body: base });
    expect(res.statusCode).toBe(401);
    expect(res.json().message_error).toBe('waiting token public');
  });
});
