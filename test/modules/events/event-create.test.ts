import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

/** The reference's sample request (reference §6.1). */
const sample = {
  name: 'Event',
  event: '98374',
  date_event: '2023-12-20',
  date_payment: '2023-12-22',
  date_closing_sales: '2023-12-19 23:59:00',
  url_logo: 'https://www.example.com/logo_event1.png',
  url_event: 'https://www.example.com/event1',
  service_sale: 10,
  affiliation: [
    ['afiliate1@example.com', 50],
    ['afiliate2@example.com', 50],
  ],
};
const post = (body: unknown, who: TestAccount = merchant) =>
  t.call(who, { method: 'POST', url: '/api/event', body });

describe('POST /api/event and GET /api/event/{id}', () => {
  it('reproduces the reference sample: id is the merchant code, event the name, distribution in two decimals', async () => {
    const res = await post(sample);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const [a, b] = body.affiliation;
    expect(a.id).toMatch(/^[0-9a-f]{20}$/);
    expect(body).toEqual({
      status: 'success',
      id: '98374',
      event: 'Event',
      date_event: '2023-12-20',
      date_payment: '2023-12-22',
      date_closing_sales: '2023-12-19 23:59:00',
      url_logo: 'https://www.example.com/logo_event1.png',
      url_event: 'https://www.example.com/event1',
      distribution: { affiliate: '100.00', service_sale: '10.00' },
      affiliation: [
        { id: a.id, email: 'afiliate1@example.com', percent: '50.00', status: 'pending' },
        { id: b.id, email: 'afiliate2@example.com', percent: '50.00', status: 'pending' },
      ],
    });
    const got = await t.call(merchant, { method: 'GET', url: '/api/event/98374' });
    expect(got.statusCode).toBe(200);
    const { status: _status, affiliation, ...rest } = body;
    // GET drops the top-level status, names the list `affiliations`, and has no paymentData before any sale.
    expect(got.json()).toEqual({ ...rest, affiliations: affiliation });
  });

  it('accepts the object form, the `affiliaction` spelling, times on every date and no optional fields', async () => {
    const res = await post({
      event: 'obj',
      name: 'Objects',
      date_event: '2026-05-01 20:00:00',
      date_closing_sales: '2026-05-01 19:00',
      date_payment: '2026-05-01 20:00:01',
      affiliaction: [
        { email: 'x@example.com', percent: '33.33' },
        { email: 'y@example.com', percent: 16.67 },
      ],
    });
    expect(res.json()).toMatchObject({
      id: 'obj',
      date_event: '2026-05-01 20:00:00',
      date_closing_sales: '2026-05-01 19:00:00',
      date_payment: '2026-05-01 20:00:01',
      url_logo: '',
      url_event: '',
      distribution: { affiliate: '50.00', service_sale: '0.00' },
      affiliation: [
        { email: 'x@example.com', percent: '33.33' },
        { email: 'y@example.com', percent: '16.67' },
      ],
    });
    const none = await post({
      event: 'none',
      name: 'No one',
      date_event: '2026-05-01',
      date_closing_sales: '2026-05-01',
      date_payment: '2026-05-02',
    });
    expect(none.json()).toMatchObject({
      date_closing_sales: '2026-05-01 23:59:59',
      distribution: { affiliate: '0.00' },
      affiliation: [],
    });
  });

  it('enforces the seed date order: closing <= event < payment', async () => {
    const base = { event: 'd', name: 'n' };
    const late = await post({
      ...base,
      date_event: '2026-05-01',
      date_closing_sales: '2026-05-02 00:00:00',
      date_payment: '2026-05-03',
    });
    expect(late.statusCode).toBe(400);
    expect(late.json().errors).toEqual({ date_closing_sales: 'after date_event' });
    const sameDay = await post({
      ...base,
      date_event: '2026-05-01',
      date_closing_sales: '2026-05-01 10:00:00',
      date_payment: '2026-05-01',
    });
    expect(sameDay.json().errors).toEqual({ date_payment: 'not after date_event' });
    const timed = await post({
      ...base,
      date_event: '2026-05-01 20:00:00',
      date_closing_sales: '2026-05-01 20:00:01',
      date_payment: '2026-05-01 20:00:00',
    });
    expect(timed.json().errors).toEqual({
      date_closing_sales: 'after date_event',
      date_payment: 'not after date_event',
    });
    const junk = await post({
      ...base,
      date_event: '2026-02-30',
      date_closing_sales: 'tomorrow',
      date_payment: '2026-05-03',
    });
    expect(junk.json().errors).toEqual({ date_event: 'invalid', date_closing_sales: 'invalid' });
  });

  it('enforces lengths, service_sale of at most 7 digits, URLs and required fields', async () => {
    const empty = await post({});
    expect(empty.json().errors).toMatchObject({
      event: 'is empty',
      name: 'is empty',
      date_event: 'is empty',
      date_closing_sales: 'is empty',
      date_payment: 'is empty',
    });
    const long = await post({
      ...sample,
      event: 'e'.repeat(41),
      name: 'n'.repeat(401),
      url_logo: `https://x.com/${'a'.repeat(230)}`,
      url_event: 'not a url',
      service_sale: 10_000_000,
    });
    expect(long.statusCode).toBe(400);
    expect(long.json().errors).toEqual({
      event: 'too long',
      name: 'too long',
      url_logo: 'too long',
      url_event: 'invalid',
      service_sale: 'too large',
    });
    expect((await post({ ...sample, event: 'neg', service_sale: -1 })).json().errors).toEqual({
      service_sale: 'too small',
    });
  });

  it('checks every beneficiary: email, percent form and length, repeats, total at most 100', async () => {
    const cases: Array<[unknown, Record<string, string>]> = [
      [
        [
          ['a@example.com', 60],
          ['b@example.com', 40.01],
        ],
        { affiliation: 'percents add up to 100.01, more than 100.00' },
      ],
      [[['a@example.com', '33.3333']], { 'affiliation.0.percent': 'too long' }],
      [[['a@example.com', '3.333']], { 'affiliation.0.percent': 'invalid' }],
      [[['a@example.com', 0]], { 'affiliation.0.percent': 'invalid' }],
      [[['a@example.com']], { 'affiliation.0': 'invalid' }],
      [[{ email: 'a@example.com' }], { 'affiliation.0.percent': 'is empty' }],
      [[{ email: 'not-mail', percent: 5 }], { 'affiliation.0.email': 'invalid' }],
      [[{ email: `${'a'.repeat(45)}@x.com`, percent: 5 }], { 'affiliation.0.email': 'too long' }],
      [
        [
          ['a@example.com', 5],
          ['A@example.com', 5],
        ],
        { 'affiliation.1.email': 'repeated' },
      ],
      [['a@example.com'], { 'affiliation.0': 'invalid' }],
    ];
    for (const [affiliation, errors] of cases) {
      const res = await post({ ...sample, event: 'bad', affiliation });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(errors);
    }
    const alias = await post({
      ...sample,
      event: 'bad',
      affiliation: undefined,
      affiliaction: [['a@example.com', 101]],
    });
    expect(alias.json().errors).toEqual({ 'affiliaction.0.percent': 'invalid' });
  });

  it('refuses a second event with the same code as a business rule; other merchants may reuse it', async () => {
    await post({ ...sample, event: 'dup' });
    const again = await post({ ...sample, event: 'dup' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({
      status: 'failed',
      type: 'duplicate_event',
      message_error: 'event dup already exists',
    });
    const other = await t.createAccount('Other');
    expect((await post({ ...sample, event: 'dup' }, other)).json().status).toBe('success');
  });

  it('refuses a code that cannot travel as one path segment of GET /api/event/{id} (decision 815)', async () => {
    for (const code of ['a/b', 'a\\b', '.', '..', 'a\nb', 'a\u007fb']) {
      const res = await post({ ...sample, event: code });
      expect(res.statusCode, JSON.stringify(code)).toBe(400);
      expect(res.json().errors, JSON.stringify(code)).toEqual({ event: 'invalid' });
    }
    // What percent-encoding carries whole is kept: the merchant's code is read back from its path.
    for (const code of ['a?b', 'a#b', 'a%b', 'a b', 'a.b', '...', 'á']) {
      expect((await post({ ...sample, event: code })).statusCode, code).toBe(200);
      const got = await t.call(merchant, {
        method: 'GET',
        url: `/api/event/${encodeURIComponent(code)}`,
      });
      expect(got.statusCode, code).toBe(200);
      expect(got.json().id).toBe(code);
    }
  });

  it('trims the code as a sale reads it, so a code sent with outer spaces can be sold (decision 815)', async () => {
    const later = {
      date_event: '2099-12-20',
      date_payment: '2099-12-22',
      date_closing_sales: '2099-12-19 23:59:00',
    };
    const made = await post({ ...sample, ...later, event: '  spaced  ' });
    expect(made.statusCode).toBe(200);
    expect(made.json().id).toBe('spaced');
    const sale = await t.call(merchant, {
      method: 'POST',
      url: '/api/transaction',
      body: {
        email: 'fan@example.com',
        order: 'spaced-1',
        subject: 'Ticket',
        amount: 5000,
        event: ' spaced ',
      },
    });
    expect(sale.statusCode, sale.body).toBe(200);
    expect(sale.json().status).toBe('pending');
    expect((await t.call(merchant, { method: 'GET', url: '/api/event/spaced' })).statusCode).toBe(
      200,
    );
    expect((await post({ ...sample, event: 'spaced ' })).json().type).toBe('duplicate_event');
    const blank = await post({ ...sample, event: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().errors).toEqual({ event: 'is empty' });
  });

  it('GET: unknown or foreign code is 404, a code over 40 characters is 400, no token is 401', async () => {
    await post({ ...sample, event: 'mine' });
    const other = await t.createAccount('Another');
    expect((await t.call(other, { method: 'GET', url: '/api/event/mine' })).statusCode).toBe(404);
    const missing = await t.call(merchant, { method: 'GET', url: '/api/event/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      status: 'failed',
      type: 'Not Found',
      id: 'is not valid',
    });
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/event/${'e'.repeat(41)}` })).json()
        .errors,
    ).toEqual({ id: 'too long' });
    expect((await t.call(null, { method: 'GET', url: '/api/event/mine' })).statusCode).toBe(401);
  });
});
