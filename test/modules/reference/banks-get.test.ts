import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('GET /api/banks and /api/paymentmethods', () => {
  it('lists CLP banks without authentication, in the seed shape', async () => {
    const res = await t.call(null, { method: 'GET', url: '/api/banks?currency=clp' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('success');
    expect(body.banks).toContainEqual({ code: '0001', name: 'Banco de Chile', currency: 'CLP' });
    expect(body.banks).toContainEqual({ code: '0012', name: 'Banco Estado', currency: 'CLP' });
    for (const code of ['0014', '0016', '0028', '0037', '0051', '0055', '0039', '0049']) {
      expect(body.banks.map((b: { code: string }) => b.code)).toContain(code);
    }
    expect(body.banks.every((b: { currency: string }) => b.currency === 'CLP')).toBe(true);
  });

  it('treats the currency filter case-insensitively and lists PEN and VES banks', async () => {
    const pen = (await t.call(null, { method: 'GET', url: '/api/banks?currency=PeN' })).json();
    expect(pen.banks).toContainEqual({ code: '007', name: 'Citibank Perú S.A.', currency: 'PEN' });
    const ves = (await t.call(null, { method: 'GET', url: '/api/banks?currency=ves' })).json();
    expect(ves.banks).toContainEqual({ code: '0134', name: 'Banesco', currency: 'VES' });
    expect(ves.banks.length).toBe(17);
  });

  it('returns every bank without a currency', async () => {
    const all = (await t.call(null, { method: 'GET', url: '/api/banks' })).json();
    expect(new Set(all.banks.map((b: { currency: string }) => b.currency))).toEqual(
      new Set(['CLP', 'PEN', 'VES']),
    );
  });

  it('answers an unknown currency with the seed 400 body', async () => {
    for (const url of ['/api/banks?currency=xyz', '/api/paymentmethods?currency=usd']) {
      const res = await t.call(null, { method: 'GET', url });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        status: 'failed',
        type: 'Unprocessable Entity',
        message_error: 'currency:invalid',
      });
    }
  });

  it('lists payment methods per currency with numeric codes', async () => {
    const clp = (
      await t.call(null, { method: 'GET', url: '/api/paymentmethods?currency=clp' })
    ).json();
    expect(clp.status).toBe('success');
    expect(clp.payment_methods[0]).toEqual({
      currency: 'CLP',
      payment: 1,
      name: 'Webpay',
      description: 'Visa, Mastercard, Magna, American, Diners y Redcompra.',
    });
    // Only what the sandbox checkout can take (decision 451): cards, and bank logins in CLP.
    expect(clp.payment_methods.map((m: { payment: number }) => m.payment)).toEqual([
      1, 2, 4, 19, 26, 100, 101, 102,
    ]);
    const ves = (
      await t.call(null, { method: 'GET', url: '/api/paymentmethods?currency=ves' })
    ).json();
    expect(ves).toEqual({ status: 'success', payment_methods: [] });
    const all = (await t.call(null, { method: 'GET', url: '/api/paymentmethods' })).json();
    expect(
      all.payment_methods.map(
        (m: { currency: string; payment: number }) => `${m.currency} ${m.payment}`,
      ),
    ).toEqual([
      'CLP 1',
      'CLP 2',
      'CLP 4',
      'CLP 19',
      'CLP 26',
      'CLP 100',
      'CLP 101',
      'CLP 102',
      'PEN 25',
    ]);
  });
  it('serves the catalogue from memory with an ETag, and answers a matching If-None-Match with 304', async () => {
    for (const url of ['/api/banks?currency=clp', '/api/paymentmethods']) {
      const first = await t.call(null, { method: 'GET', url });
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toMatch(/^application\/json/);
      const etag = first.headers.etag;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await t.call(null, {
        method: 'GET',
        url,
        headers: { 'if-none-match': String(etag) },
      });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      const stale = await t.call(null, {
        method: 'GET',
        url,
        headers: { 'if-none-match': '"other"' },
      });
      expect(stale.statusCode).toBe(200);
      expect(stale.json()).toEqual(first.json());
    }
    const clp = await t.call(null, { method: 'GET', url: '/api/banks?currency=CLP' });
    const all = await t.call(null, { method: 'GET', url: '/api/banks' });
    expect(clp.headers.etag).not.toBe(all.headers.etag);
  });
});
