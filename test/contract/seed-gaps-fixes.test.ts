// Decision 755's edges beside the review's cases (review-seed-gaps.test.ts): what "not given" does not cover, a PHP
// body with both a null and a boolean, `0` flags, and JSON under a `+json` media type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { referenceSign } from '../support/reference-sign.ts';
import { computeSign } from '../../src/platform/auth/sign.ts';

let t: TestApp;
let m: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  m = await t.createAccount('Seed fixes merchant');
});
afterAll(async () => {
  await t.close();
});

const client = (email: string) => ({
  email,
  name: 'John Doe',
  phone: '923122312',
  bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
});

describe('"not given" stops where a field is required', () => {
  it('a required object written `[]` is an empty object: its own fields are named', async () => {
    const res = await t.call(m, {
      method: 'POST',
      url: '/api/maclient',
      body: { ...client('empty.bank@example.com'), bank: [] },
    });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors)).toEqual(
      expect.arrayContaining(['bank.sbif', 'bank.num', 'bank.rut']),
    );
  });

  it('null for a required field is still refused', async () => {
    const res = await t.call(m, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'payer@example.com', order: null, subject: 'Pago', amount: null },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toMatchObject({ amount: 'is empty' });
    expect(res.json().errors.order).toBeDefined();
  });

  it('"" for an optional URL means absent, but a wrong URL is still invalid', async () => {
    const res = await t.call(m, {
      method: 'POST',
      url: '/api/event',
      body: {
        name: 'Evento',
        event: 'bad-url-1',
        date_event: '2026-12-20',
        date_payment: '2026-12-22',
        date_closing_sales: '2026-12-19 23:59:00',
        url_logo: 'not a url',
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual({ url_logo: 'invalid' });
  });
});

describe('Sign: a PHP body holding a null and a boolean', () => {
  it('is checked against the PHP script’s whole style (null as `key=`, true as `1`)', async () => {
    const body = {
      email: 'php.both@example.com',
      name: 'John Doe',
      phone: '923122312',
      address: null,
      country: true,
    };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/suclient',
      headers: {
        authorization: `Bearer ${m.publicToken}`,
        'content-type': 'application/json',
        sign: referenceSign('php', m.privateToken, '/api/suclient', body),
      },
      payload: JSON.stringify(body),
    });
    // The Sign is accepted; the boolean country is then refused by the strict coercion (decision 072).
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual({ country: 'invalid' });
  });
});

describe('status flags', () => {
  it('GET /api/sususcription?active=0 is no filter, and a flag other than 1/0/true/false is invalid', async () => {
    const off = await t.call(m, {
      method: 'GET',
      url: '/api/sususcription?active=0',
      sign: true,
    });
    expect(off.statusCode, off.body).toBe(200);
    const bad = await t.call(m, {
      method: 'GET',
      url: '/api/sususcription?active=2',
      sign: true,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual({ active: 'invalid' });
  });

  it('GET /api/transaction?success=0 is no filter, as false is', async () => {
    const res = await t.call(m, { method: 'GET', url: '/api/transaction?success=0' });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors).toBeUndefined();
  });
});

describe('event dates with a zone', () => {
  it('an offset is read as the instant it names; a date the calendar lacks is invalid', async () => {
    const base = { name: 'Evento', date_payment: '2026-12-22', date_closing_sales: '2026-12-19' };
    const ok = await t.call(m, {
      method: 'POST',
      url: '/api/event',
      body: { ...base, event: 'offset-1', date_event: '2026-12-20T20:00:00+00:00' },
    });
    expect(ok.json()).toMatchObject({ status: 'success', date_event: '2026-12-20 17:00:00' });
    const bad = await t.call(m, {
      method: 'POST',
      url: '/api/event',
      body: { ...base, event: 'offset-2', date_event: '2026-02-30T20:00:00Z' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual({ date_event: 'invalid' });
  });
});

describe('JSON under a +json media type', () => {
  it('application/vnd.api+json is read as JSON; application/xml is still 415', async () => {
    const body = { email: 'payer@example.com', order: 'vnd-1', subject: 'Pago', amount: 1000 };
    const res = await t.call(m, {
      method: 'POST',
      url: '/api/transaction',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'pending' });
    const plain = await t.call(m, {
      method: 'POST',
      url: '/api/transaction',
      body: JSON.stringify({ ...body, order: 'vnd-2' }),
      headers: { 'content-type': 'application/xml' },
    });
    expect(plain.statusCode).toBe(415);
  });

  it('a +json body is signed like any other', async () => {
    const body = { amount: 1000, currency: 'CLP', order: 'vnd-w-1', subject: 'withdraw' };
    const res = await t.call(m, {
      method: 'POST',
      url: '/api/wallet/withdraw',
      body: JSON.stringify(body),
      headers: {
        'content-type': 'application/problem+json',
        sign: computeSign(m.privateToken, '/api/wallet/withdraw', body),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'insufficient_funds' });
  });
});
