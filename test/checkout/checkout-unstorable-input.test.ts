// Text PostgreSQL cannot store (a NUL, a lone surrogate) in a link, a return token or a mall id names nothing: the
// checkout's page of a bad link (404), never the 500 page of a database error (decision 860).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };

describe('the checkout refuses text no database can hold', () => {
  it.each([
    '/gateway/webpay/return?token_ws=%00',
    '/gateway/webpay/return?TBK_TOKEN=ab%00cd',
    '/gateway/webpay/return?TBK_ORDEN_COMPRA=%00',
    '/gateway/fintoc/return?attempt=att%00',
    '/gateway/mall/%00',
    '/gateway/cobro?id=trx%00&valid=x',
    '/gateway/registrosuscripcion?token=%00&validacion=x',
  ])('GET %s answers the page of a bad link', async (url) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await t.app.inject({ method, url, headers: { accept: 'text/html' } });
      expect([url, method, res.statusCode]).toEqual([url, method, 404]);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      if (method === 'GET') expect(res.body).toContain('Enlace de pago no válido');
    }
  });

  it.each([
    ['/gateway/webpay/return', 'token_ws=%00'],
    ['/gateway/webpay/return', 'TBK_TOKEN=%00&TBK_ORDEN_COMPRA=x'],
    ['/gateway/mall/%00', 'method=1'],
    ['/gateway/cobro', 'id=trx%00&valid=x&method=1'],
  ])('POST %s %s answers the page of a bad link', async (url, payload) => {
    const res = await t.app.inject({ method: 'POST', url, headers: form, payload });
    expect([url, payload, res.statusCode]).toEqual([url, payload, 404]);
    expect(res.body).toContain('Enlace de pago no válido');
  });

  it('a lone surrogate in a posted token is refused the same way', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/webpay/return',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      payload: '{"token_ws":"\\ud800"}',
    });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('Enlace de pago no válido');
  });
});
