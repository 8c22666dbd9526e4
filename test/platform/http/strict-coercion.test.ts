// Strict coercion over HTTP (decision 072): booleans and exponents never fill a string field, nor a boolean, a
// fraction or a number past exactness an integer field (an integral number in any spelling does: decision 1160),
// on every /api route; the tolerance of supplement §1.2 (digits for integers, numbers for strings, past 2^53 too
// since decision 755) stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { sampleClient, createClient } from '../../modules/marketplace/helpers.ts';

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

/**
 * Sends a raw JSON text, so that numbers keep the spelling a test gives them (`1e3`, 20 digits), signed over the
 * values the server parses, as a client signing its own body would.
 */
async function sendRaw(method: 'POST' | 'PUT', url: string, rawJson: string, sign = false) {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    authorization: `Bearer ${account.publicToken}`,
  };
  if (sign) headers.sign = computeSign(account.privateToken, url, parsedAsServer(rawJson));
  return t.app.inject({ method, url, headers, payload: rawJson });
}

/** The body as the server reads it: plain digits past 2^53 keep their text (decision 755). */
function parsedAsServer(rawJson: string): Record<string, unknown> {
  const keepDigits = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    /^-?[0-9]+$/.test(context?.source ?? '')
      ? context?.source
      : value;
  return JSON.parse(rawJson, keepDigits as (key: string, value: unknown) => unknown);
}

/** A JSON text of `base` with `field` written as the literal `literal`. */
function withLiteral(base: Record<string, unknown>, field: string, literal: string): string {
  const marker = '"__literal__"';
  return JSON.stringify({ ...base, [field]: '__literal__' }).replace(marker, literal);
}

function expectFieldRefused(res: { statusCode: number; json(): any }, field: string): void {
  expect(res.statusCode, field).toBe(400);
  expect(res.json()).toMatchObject({
    status: 'failed',
    type: 'Unprocessable Entity',
    errors: { [field]: 'invalid' },
  });
  expect(res.json().message_error).toContain(`${field}:invalid`);
}

const payout = {
  email: 'pay@example.com',
  subject: 'Pago proveedor',
  currency: 'CLP',
  order: 'p-1',
  amount: 1000,
  accountbank_name: 'Juan Pérez',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '123456',
};

async function payoutCount(): Promise<number> {
  return (
    await t.ctx.db.selectFrom('payouts').select('id').where('account_id', '=', account.id).execute()
  ).length;
}

describe('POST /api/wallet/payout', () => {
  it('refuses booleans, exponents and inexact numbers in string and integer fields, and writes nothing', async () => {
    const cases: Array<[string, string]> = [
      ['accountbank_num', 'false'],
      ['accountbank_num', 'true'],
      ['order', '1e308'],
      ['order', '1E3'],
      ['subject', 'true'],
      ['order', '1.50'],
      // A number is its exact value (decision 1160): a fraction, however its text is spelt, is no integer.
      ['amount', '25E-1'],
      ['amount', '1000.0000000000000001'],
      ['amount', 'false'],
    ];
    for (const [field, literal] of cases) {
      const body = { ...payout, order: `loose-${field}-${literal}` };
      const res = await sendRaw(
        'POST',
        '/api/wallet/payout',
        withLiteral(body, field, literal),
        true,
      );
      expectFieldRefused(res, field);
    }
    // Past exactness but plainly written, a number is judged by the field's own bound, as its digit string is.
    for (const literal of ['12345678901234567890', '"12345678901234567890"', '1e20', '1e400']) {
      const res = await sendRaw(
        'POST',
        '/api/wallet/payout',
        withLiteral({ ...payout, order: 'huge' }, 'amount', literal),
        true,
      );
      expect(res.json().errors).toEqual({ amount: 'too large' });
    }
    const phone = await sendRaw(
      'POST',
      '/api/wallet/payout',
      withLiteral({ ...payout, order: 'long-phone' }, 'phone', '1e20'),
      true,
    );
    expect(phone.json().errors).toEqual({ phone: 'invalid' });
    expect(await payoutCount()).toBe(0);
  });

  it('still takes a string of digits for an integer and a plain number for a string, keeping its text', async () => {
    const raw = withLiteral(
      { ...payout, order: 'digits-ok', amount: '1000' },
      'accountbank_num',
      '12345678',
    );
    const res = await sendRaw('POST', '/api/wallet/payout', raw, true);
    expect(res.json().status).toBe('success');
    const row = await t.ctx.db
      .selectFrom('payouts')
      .selectAll()
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(row.accountbank_num).toBe('12345678');
    expect(row.amount_minor).toBe(1000n);
  });

  it('reads an integral number in any spelling as its exact integer (decision 1160)', async () => {
    for (const literal of ['1e3', '1.0E3', '1000.0', '100000e-2']) {
      const order = `spelt-${literal}`;
      const raw = withLiteral({ ...payout, order }, 'amount', literal);
      const res = await sendRaw('POST', '/api/wallet/payout', raw, true);
      expect(res.json(), literal).toMatchObject({ status: 'success' });
      const row = await t.ctx.db
        .selectFrom('payouts')
        .select('amount_minor')
        .where('account_id', '=', account.id)
        .where('order', '=', order)
        .executeTakeFirstOrThrow();
      expect(row.amount_minor, literal).toBe(1000n);
    }
  });

  it('keeps the exact digits of a plain number past 2^53 in a string field (decision 755)', async () => {
    for (const digits of ['12345678901234567890', '9007199254740993']) {
      const raw = withLiteral({ ...payout, order: `big-${digits}` }, 'accountbank_num', digits);
      const res = await sendRaw('POST', '/api/wallet/payout', raw, true);
      expect(res.json(), digits).toMatchObject({ status: 'success' });
      const row = await t.ctx.db
        .selectFrom('payouts')
        .select('accountbank_num')
        .where('account_id', '=', account.id)
        .where('order', '=', `big-${digits}`)
        .executeTakeFirstOrThrow();
      expect(row.accountbank_num).toBe(digits);
    }
  });
});

describe('POST /api/transaction', () => {
  const transaction = {
    email: 'payer@example.com',
    order: 'c-1',
    subject: 'Compra',
    amount: 25000,
  };

  it('refuses `order: 1e308`, booleans in strings and exponents in amounts', async () => {
    for (const [field, literal] of [
      ['order', '1e308'],
      ['subject', 'false'],
      ['email', 'true'],
      ['amount', '25000.5e0'],
      ['amount', '"25e3"'],
      ['payment', '1e-1'],
      ['payment', 'true'],
    ] as const) {
      expectFieldRefused(
        await sendRaw('POST', '/api/transaction', withLiteral(transaction, field, literal)),
        field,
      );
    }
    expect(
      await t.ctx.db
        .selectFrom('transactions')
        .select('id')
        .where('account_id', '=', account.id)
        .execute(),
    ).toEqual([]);
  });

  it('keeps a numeric order as its text', async () => {
    const res = await sendRaw(
      'POST',
      '/api/transaction',
      withLiteral(transaction, 'order', '4200'),
    );
    expect(res.json().status).toBe('pending');
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select('order')
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row.order).toBe('4200');
  });
});

describe('marketplace clients', () => {
  it('names the nested field when a bank field holds a boolean or an exponent (POST /api/maclient)', async () => {
    for (const [field, literal] of [
      ['num', 'false'],
      ['sbif', '1e1'],
      ['rut', 'true'],
    ] as const) {
      const raw = JSON.stringify({
        ...sampleClient,
        bank: { ...sampleClient.bank, [field]: '__literal__' },
      }).replace('"__literal__"', literal);
      expectFieldRefused(await sendRaw('POST', '/api/maclient', raw), `bank.${field}`);
    }
  });

  it('refuses them on PUT /api/maclient/{id} too, and leaves the client as it was', async () => {
    const id = await createClient(t, account);
    const url = `/api/maclient/${id}`;
    expectFieldRefused(await sendRaw('PUT', url, '{"bank":{"type":true}}', true), 'bank.type');
    expectFieldRefused(await sendRaw('PUT', url, '{"bank":{"num":1e21}}', true), 'bank.num');
    expectFieldRefused(await sendRaw('PUT', url, '{"name":false}', true), 'name');
    const got = await t.call(account, { method: 'GET', url });
    expect(got.json()).toMatchObject({
      name: sampleClient.name,
      bank: { num: sampleClient.bank.num, type: '1' },
    });
    const ok = await sendRaw('PUT', url, '{"bank":{"type":2,"num":987654321}}', true);
    expect(ok.statusCode).toBe(200);
    expect((await t.call(account, { method: 'GET', url })).json().bank).toMatchObject({
      type: '2',
      num: '987654321',
    });
  });
});

describe('the JSON body parser', () => {
  it("still refuses prototype poisoning, as Fastify's default parser does", async () => {
    for (const raw of [
      '{"__proto__":{"admin":true}}',
      '{"a":{"constructor":{"prototype":{"admin":true}}}}',
      '{"\\u005f_proto__":1}',
    ]) {
      const res = await sendRaw('POST', '/api/transaction', raw);
      expect(res.statusCode, raw).toBe(400);
      expect(res.json()).toMatchObject({ status: 'failed', errors: { body: 'invalid json' } });
    }
  });
});
