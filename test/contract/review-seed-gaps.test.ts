// Review of the seed contract (branch r-contract): requests as a merchant's existing integration sends them, each
// against a gap between what seed-api.md / reference-service-facts.md promise and what Cobro answers. Every case
// here failed when it was written; the fix belongs in src/, not in the test (decision 755), except the payment
// codes 6, 9 and 23, which assert decision 451's documented refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { referenceSign, type ReferenceScript } from '../support/reference-sign.ts';

let t: TestApp;
let m: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  m = await t.createAccount('Seed gaps merchant');
  await t.call(m, { method: 'POST', url: '/api/sandbox/wallet/credit', body: { amount: 100000 } });
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, unknown>;

/** A request as the reference's own PHP or JS script signs it (test/support/reference-sign.ts). */
async function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: Json,
  sign?: ReferenceScript,
) {
  const [path, query] = url.split('?') as [string, string | undefined];
  const data =
    method === 'GET' ? Object.fromEntries(new URLSearchParams(query ?? '')) : (body ?? {});
  const headers: Record<string, string> = {
    accept: 'application/json, text/plain, */*',
    authorization: `Bearer ${m.publicToken}`,
  };
  if (sign !== undefined) headers.sign = referenceSign(sign, m.privateToken, path, data);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return t.app.inject({
    method,
    url,
    headers,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const payout = (order: string): Json => ({
  email: 'johndoe@example.com',
  subject: 'PayOut',
  currency: 'CLP',
  order,
  amount: 1000,
  accountbank_name: 'Jhon Doe',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '12312312312',
});

describe('Sign: the reference PHP script keeps a NULL value as `key=` (reference §12.3 step 4, §12.4)', () => {
  // The PHP sample drops only `gettype($val) == 'array' | 'object'`; `urlencode(null)` is "", so a PHP integration
  // whose optional field is null (`'phone' => $customer->phone ?? null`) signs `...&phone=&...`. Cobro builds the
  // PHP boolean style as a candidate (sign.ts) but never the PHP null style, so every such request is 401.
  it('POST /api/wallet/payout with phone and url_notify null, signed by the PHP script, is accepted', async () => {
    const res = await send(
      'POST',
      '/api/wallet/payout',
      { ...payout('php-null-1'), phone: null, url_notify: null },
      'php',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success' });
  });

  it('POST /api/suclient with address null, signed by the PHP script, is accepted', async () => {
    const res = await send(
      'POST',
      '/api/suclient',
      { email: 'php.null@example.com', name: 'John Doe', phone: '923122312', address: null },
      'php',
    );
    expect(res.statusCode, res.body).toBe(200);
  });

  it('the same body signed by the JS script (null dropped) is accepted, as it already is', async () => {
    const res = await send(
      'POST',
      '/api/wallet/payout',
      { ...payout('js-null-1'), phone: null },
      'js',
    );
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('POST /api/transaction: the seed lists `payment` values 1, 4, 6, 9, 19, 23, 26, 99', () => {
  // Seed "Transaction": "Values: 1 (card gateway), 4 (bank transfer), 6, 9, 19 (bank transfer), 23, 26 (bank
  // transfer), 99 (all)". The seed lists the codes a request may carry, not that every deployment takes each; the
  // supplement is silent. Decision 451 refuses 6 (Pago46), 9 (MACH) and 23 (Tenpo) at creation, HTTP 200
  // `payment_method_unavailable`, because no checkout page can take a cash or wallet-app payment, in sandbox or in
  // production; decision 755 records why a sandbox page for them is not built in this change. This asserts that
  // documented refusal (docs/payments.md, docs/errors.md), written before anything is stored.
  it.each([6, 9, 23])(
    'payment %i is refused, naming the method, as decision 451 documents',
    async (payment) => {
      const res = await send('POST', '/api/transaction', {
        email: 'payer@example.com',
        order: `pay-${payment}`,
        subject: 'Pago',
        amount: 1000,
        payment,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json(), res.body).toMatchObject({
        status: 'failed',
        type: 'payment_method_unavailable',
      });
    },
  );
});

describe("PHP's empty array: json_encode([]) is `[]`, not `{}` (supplement §1.2, tolerant input)", () => {
  // A PHP integration builds `'additional_parameters' => $params` with `$params = []` when it has none, and PHP
  // encodes an empty array as a JSON array. The reference backend is PHP too (it answers `"parámetros": []` and
  // `"additional_parameters": ""`), so `[]` means "no parameters"; Cobro answers 400 `additional_parameters:invalid`
  // on every endpoint that takes the object.
  it('POST /api/transaction with additional_parameters [] creates the sale', async () => {
    const res = await send('POST', '/api/transaction', {
      email: 'payer@example.com',
      order: 'php-empty-array-1',
      subject: 'Pago',
      amount: 1000,
      additional_parameters: [],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'pending' });
  });

  it('POST /api/wallet/payout with additional_parameters [] pays', async () => {
    const res = await send(
      'POST',
      '/api/wallet/payout',
      { ...payout('php-empty-array-2'), additional_parameters: [] },
      'php',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success' });
  });

  it('POST /api/suclient with additional_parameters [] creates the client', async () => {
    const res = await send(
      'POST',
      '/api/suclient',
      {
        email: 'php.empty@example.com',
        name: 'John Doe',
        phone: '923122312',
        additional_parameters: [],
      },
      'php',
    );
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('empty optional values mean "not given", as Cobro already treats urlnotify "" and marketplace ""', () => {
  // POST /api/transaction takes `urlnotify: ""`, `urlreturn: ""`, `currency: ""` and `expired: ""` as absent,
  // but other optional fields refuse the same empty value with 400 `invalid`.
  it('POST /api/event with url_logo and url_event "" (what GET /api/event answers for an event without them)', async () => {
    const res = await send('POST', '/api/event', {
      name: 'Evento',
      event: 'empty-urls-1',
      date_event: '2026-12-20',
      date_payment: '2026-12-22',
      date_closing_sales: '2026-12-19 23:59:00',
      url_logo: '',
      url_event: '',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', url_logo: '', url_event: '' });
  });

  it('POST /api/transaction with payment "" offers every method, as without payment', async () => {
    const res = await send('POST', '/api/transaction', {
      email: 'payer@example.com',
      order: 'empty-payment-1',
      subject: 'Pago',
      amount: 1000,
      payment: '',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'pending' });
  });

  it('POST /api/event with service_sale "" creates the event without a service fee', async () => {
    const res = await send('POST', '/api/event', {
      name: 'Evento',
      event: 'empty-fee-1',
      date_event: '2026-12-20',
      date_payment: '2026-12-22',
      date_closing_sales: '2026-12-19 23:59:00',
      service_sale: '',
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('POST /api/event: a datetime whose meaning is clear (supplement §1.2)', () => {
  // The seed types date_event, date_closing_sales and date_payment as "datetime". A JS integration sends
  // `date.toISOString()`; Cobro takes `2026-12-20T20:00:00` but refuses the same instant with its zone as
  // `date_event: too long`, a message that does not say what is wrong.
  it('takes ISO-8601 with milliseconds and Z and answers it in the service time zone', async () => {
    const res = await send('POST', '/api/event', {
      name: 'Evento ISO',
      event: 'iso-z-1',
      date_event: '2026-12-20T23:00:00.000Z',
      date_payment: '2026-12-22T13:00:00.000Z',
      date_closing_sales: '2026-12-20T02:59:00.000Z',
    });
    expect(res.statusCode, res.body).toBe(200);
    // America/Santiago is UTC-3 in December.
    expect(res.json()).toMatchObject({
      date_event: '2026-12-20 20:00:00',
      date_payment: '2026-12-22 10:00:00',
      date_closing_sales: '2026-12-19 23:59:00',
    });
  });
});

describe('HTTP-200 failed bodies keep the fields the seed declares for the 200', () => {
  // Seed "Wallet": POST /api/wallet/payout "200: {status: 'success' or 'failed', identifier_wallet: string,
  // identifier_payout: string}". A refused payout answers {status, type, message_error} only, so a client that
  // deserialises the declared 200 shape (a typed Java/C#/Go client) finds two required strings missing.
  it('an insufficient-funds payout still carries identifier_wallet and identifier_payout (empty strings)', async () => {
    const poor = await t.createAccount('Seed gaps poor merchant');
    const body = { ...payout('poor-1'), amount: 5000 };
    const res = await t.call(poor, { method: 'POST', url: '/api/wallet/payout', body, sign: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'failed',
      identifier_wallet: expect.any(String),
      identifier_payout: expect.any(String),
    });
  });
});

describe('a string field given a number keeps its text (supplement §1.2), past 2^53 too', () => {
  // PHP integers are 64-bit and json_encode writes them exactly, so an integration whose order ids are
  // BIGINT/snowflake ids (`'order' => $order->id`) sends `"order":1798919972496684032`; the reference backend
  // (PHP) reads it exactly and its PHP signing script signs `order=1798919972496684032`. The JSON parser keeps the
  // source text (json-body.ts), yet decision 072 refuses such a number as `order:invalid`, and the Sign is
  // checked against the rounded double (`...684000`).
  const bigOrder = '1798919972496684032';

  it('POST /api/transaction with order 1798919972496684032 (a JSON number) stores the order as written', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/transaction',
      headers: { authorization: `Bearer ${m.publicToken}`, 'content-type': 'application/json' },
      payload: `{"email":"payer@example.com","order":${bigOrder},"subject":"Pago","amount":1000}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const got = await t.call(m, { method: 'GET', url: `/api/transaction/${res.json().id}` });
    expect(got.json().order).toBe(bigOrder);
  });

  it('POST /api/wallet/payout with that order, signed by the PHP script over its digits, pays', async () => {
    const fields = payout('ignored');
    const { order: _unused, ...rest } = fields;
    const sign = referenceSign('php', m.privateToken, '/api/wallet/payout', {
      ...rest,
      order: bigOrder,
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/wallet/payout',
      headers: {
        authorization: `Bearer ${m.publicToken}`,
        'content-type': 'application/json',
        sign,
      },
      payload: `${JSON.stringify(rest).slice(0, -1)},"order":${bigOrder}}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success' });
  });
});

describe("status flags as PHP's http_build_query writes them (`true` becomes `1`)", () => {
  // Reference §7.7/§7.8 filter subscription lists with `<status>=true`. A PHP integration builds the query with
  // http_build_query(['active' => true, 'page' => 1]), which writes `active=1`. GET /api/transaction already takes
  // `success=1` (transaction-query.ts), but the subscription lists answer 400 `active:invalid`.
  it.each(['/api/sususcription?active=1&page=1', '/api/sususcriptionv3?active=1&page=1'])(
    'GET %s answers the list',
    async (url) => {
      const res = await send('GET', url, undefined, 'php');
      expect(res.statusCode, res.body).toBe(200);
      expect(Array.isArray(res.json())).toBe(true);
    },
  );
});

describe('null for an optional field means "not given", as Cobro already treats phone, payment or urlnotify null', () => {
  // Typed clients serialise every member of their request object: Jackson, System.Text.Json and Go's encoding/json
  // (pointer fields) write `null` for the unset ones by default, and JS code writes `x ?? null`. Cobro takes null
  // for plain optional strings and integers, but refuses it for the optional objects and URL-formatted strings
  // with 400 `invalid`, and for PUT /api/maclient's phone with `is empty`.
  it('POST /api/transaction with additional_parameters null', async () => {
    const res = await send('POST', '/api/transaction', {
      email: 'payer@example.com',
      order: 'null-ap-1',
      subject: 'Pago',
      amount: 1000,
      additional_parameters: null,
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('POST /api/wallet/payout with url_notify and additional_parameters null (JS script drops nulls)', async () => {
    const res = await send(
      'POST',
      '/api/wallet/payout',
      { ...payout('null-url-1'), url_notify: null, additional_parameters: null },
      'js',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success' });
  });

  it('POST /api/event with url_event, url_logo and affiliation null', async () => {
    const res = await send('POST', '/api/event', {
      name: 'Evento',
      event: 'null-fields-1',
      date_event: '2026-12-20',
      date_payment: '2026-12-22',
      date_closing_sales: '2026-12-19 23:59:00',
      url_event: null,
      url_logo: null,
      affiliation: null,
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('PUT /api/maclient/{id} with only name set and phone and bank null changes the name', async () => {
    const created = await send('POST', '/api/maclient', {
      email: 'null.put@example.com',
      name: 'John Doe',
      phone: '923122312',
      bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id as string;
    const res = await send(
      'PUT',
      `/api/maclient/${id}`,
      { name: 'Jane Doe', phone: null, bank: null },
      'js',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Jane Doe', phone: '923122312' });
  });
});

describe('docs/client.md against the server', () => {
  // docs/client.md ("What every method returns") names "a membership that does not add up" among the business
  // refusals answered with HTTP 200 `status: failed`; the server answers it 400 (a validation error), as
  // docs/marketplace.md and supplement §3 have it. A client written from docs/client.md checks the wrong status.
  it('the answer to a membership whose percentages do not add up has the HTTP status docs/client.md gives it', async () => {
    const doc = await import('node:fs').then((fs) =>
      fs.readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8'),
    );
    const documentedAs200 = /HTTP 200[^.]*a membership that does not\s+add up/.test(doc);
    const client = await send('POST', '/api/maclient', {
      email: 'split@example.com',
      name: 'Split',
      phone: '923122312',
      bank: { sbif: '0001', type: '1', num: '1', rut: '111111111' },
    });
    const res = await send('POST', '/api/maaffiliation', {
      name: 'no suma',
      percentage: '10',
      affiliation: [[client.json().id, '45']],
    });
    expect(res.json().status).toBe('failed');
    expect(res.statusCode).toBe(documentedAs200 ? 200 : 400);
  });
});

describe('sandbox: POST /api/wallet/withdraw can be exercised by an integration', () => {
  // Seed "Environments": the sandbox is for "integration tests without touching real data". A sandbox account
  // (the demo account `npm start` prints included) has no bank account, the dashboard offers no way to add one
  // (only the operator's `cobro accounts set-bank`), so every withdraw answers HTTP 200 `bank_account_missing`
  // and the seed's `{status: 'Success', identifier_wallet}` can never be seen in the sandbox.
  it('a funded sandbox account withdraws with the reference sample body', async () => {
    const res = await send(
      'POST',
      '/api/wallet/withdraw',
      { subject: 'withdraw 133222', currency: 'CLP', order: 'sandbox-withdraw-1', amount: 1000 },
      'php',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json(), res.body).toMatchObject({
      status: 'Success',
      identifier_wallet: expect.stringMatching(/^wa/),
    });
  });
});
