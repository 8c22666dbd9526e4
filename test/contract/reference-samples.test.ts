// Decision 700 (a guard, passing before it, from review-contract): the reference's own request samples
// (reference-service-facts.md; docs/payku.md's cURL, PHP and JS), sent unchanged with Sign computed by the
// reference scripts, work against Cobro.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { referenceSign, type ReferenceScript } from '../support/reference-sign.ts';

let t: TestApp;
let m: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  m = await t.createAccount('Samples merchant');
  await t.call(m, { method: 'POST', url: '/api/sandbox/wallet/credit', body: { amount: 100000 } });
});
afterAll(async () => {
  await t.close();
});

const sampleHeaders = {
  accept: 'application/json, text/plain, */*',
  'content-type': 'application/json',
};

async function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: Record<string, unknown>,
  sign?: ReferenceScript,
) {
  const [path, query] = url.split('?') as [string, string | undefined];
  const data =
    method === 'GET' ? Object.fromEntries(new URLSearchParams(query ?? '')) : (body ?? {});
  const headers: Record<string, string> = {
    ...sampleHeaders,
    authorization: `Bearer ${m.publicToken}`,
  };
  if (sign !== undefined) headers.sign = referenceSign(sign, m.privateToken, path, data);
  return t.app.inject({
    method,
    url,
    headers,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const curlPayout = {
  email: 'johndoe@example.com',
  phone: '123456789',
  subject: 'PayOut 133222',
  currency: 'CLP',
  order: '133222',
  amount: 1000,
  accountbank_name: 'Jhon Doe',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '12312312312',
  url_notify: 'https://www.youwebsite.com/urlnotify?orderClient=98745',
  additional_parameters: { parameters1: 'keyValue', parameters2: 'keyValue', order_ext: 'fff-777' },
};

describe('§9 wallet samples', () => {
  it('POST /api/wallet/payout: the cURL, PHP (order 9876) and JS (order 133222 as a number) bodies', async () => {
    const curl = await send('POST', '/api/wallet/payout', curlPayout, 'php');
    expect(curl.statusCode, curl.body).toBe(200);
    expect(curl.json()).toMatchObject({ status: 'success' });
    const php = await send(
      'POST',
      '/api/wallet/payout',
      { ...curlPayout, subject: 'payOut 9876', order: 9876 },
      'php',
    );
    expect(php.statusCode, php.body).toBe(200);
    expect(php.json()).toMatchObject({ status: 'success' });
    const js = await send('POST', '/api/wallet/payout', { ...curlPayout, order: 133222 }, 'js');
    expect(js.statusCode, js.body).toBe(200);
    // The same order and body as the cURL one (order 133222 as a number): the first answer again.
    expect(js.json()).toEqual(curl.json());
    const id = curl.json().identifier_payout;
    const wa = curl.json().identifier_wallet;
    for (const script of ['php', 'js'] as const) {
      expect((await send('GET', '/api/wallet', undefined, script)).statusCode).toBe(200);
      expect((await send('GET', '/api/wallet/list', undefined, script)).statusCode).toBe(200);
      expect(
        (await send('GET', '/api/wallet/list?page=1&per_page=100', undefined, script)).statusCode,
      ).toBe(200);
      expect((await send('GET', `/api/wallet/${wa}`, undefined, script)).statusCode).toBe(200);
      expect((await send('GET', `/api/payout/${id}`, undefined, script)).statusCode).toBe(200);
      expect((await send('GET', `/api/payoutv3/${id}`, undefined, script)).statusCode).toBe(200);
    }
  });

  it('POST /api/wallet/withdraw: the PHP and JS bodies are valid requests (refused for want of a bank account, HTTP 200)', async () => {
    const php = await send(
      'POST',
      '/api/wallet/withdraw',
      { subject: 'withdraw 9876', order: '133222', currency: 'CLP', amount: 1000 },
      'php',
    );
    expect(php.statusCode, php.body).toBe(200);
    const js = await send(
      'POST',
      '/api/wallet/withdraw',
      { amount: 1000, currency: 'CLP', order: '133222', subject: 'subject' },
      'js',
    );
    expect(js.statusCode, js.body).toBe(200);
  });
});

describe('§4, §6, §10 samples', () => {
  it('marketplace client, affiliation, event and conciliation bodies', async () => {
    const c = await send('POST', '/api/maclient', {
      email: 'johndoe@example.com',
      name: 'John Doe',
      phone: '923122312',
      bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
    });
    expect(c.statusCode, c.body).toBe(200);
    const id = c.json().id;
    const put = await send(
      'PUT',
      `/api/maclient/${id}`,
      { bank: { num: '9999999', rut: '261009617' } },
      'php',
    );
    expect(put.statusCode, put.body).toBe(200);
    const a = await send('POST', '/api/maaffiliation', {
      name: 'name',
      percentage: '20',
      affiliation: [[id, '80']],
    });
    expect(a.statusCode, a.body).toBe(200);
    const tx = await send('POST', '/api/transaction/', {
      email: 'johndoe@example.com',
      order: '5696',
      subject: 'Cliente Test',
      amount: 25000,
      payment: 1,
      urlreturn: 'https://youwebsite.com/urlreturn?orderClient=5696',
      urlnotify: 'https://youwebsite.com/urlnotify?orderClient=5696',
      marketplace: a.json().token,
    });
    expect(tx.statusCode, tx.body).toBe(200);
    expect(tx.json().status).toBe('pending');
    const ev = await send('POST', '/api/event', {
      name: 'Event',
      event: '98374',
      date_event: '2026-12-20',
      date_payment: '2026-12-22',
      date_closing_sales: '2026-12-19 23:59:00',
      url_logo: 'https://www.example.com/logo_event1.png',
      url_event: 'https://www.example.com/event1',
      service_sale: 10,
      affiliation: [
        ['afiliate1@example.com', 50],
        ['afiliate2@example.com', 50],
      ],
    });
    expect(ev.statusCode, ev.body).toBe(200);
    const conc = await send('POST', '/api/conciliation', {
      date_init: '2026-03-01',
      date_end: '2026-03-10',
    });
    expect(conc.statusCode, conc.body).toBe(200);
    expect((await send('DELETE', `/api/maaffiliation/${a.json().id}`)).statusCode).toBe(200);
    expect((await send('DELETE', `/api/maclient/${id}`)).statusCode).toBe(200);
  });
});
