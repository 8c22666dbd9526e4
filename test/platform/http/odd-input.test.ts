// Decision 680: odd input is refused, not crashed on. Each case is a client's mistake that must get the seed's JSON
// error (`{"status":"failed","type":...,"message_error":...}`, HTTP 4xx) and change nothing, or a page within the
// documented bounds that must be answered. Before decision 680 every case here answered HTTP 500 on the embedded
// engine (PGlite), and all but the year-0000/0001 dates on PostgreSQL too (which answered those with 200 and a
// BC date). Found in review (branch review-input).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { databaseDigest } from '../../support/db-digest.ts';
import { payByCard } from '../../modules/transactions/helpers.ts';
import { payoutBody } from '../../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let account: TestAccount;
let paidId: string;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
  const credit = await t.call(account, {
    method: 'POST',
    url: '/api/sandbox/wallet/credit',
    body: { amount: 500_000, currency: 'CLP', reason: 'test funds' },
  });
  expect(credit.statusCode).toBe(200);
  paidId = (await payByCard(t, account, { order: 'paid-1', amount: 50_000 })).created.id;
});
afterAll(async () => {
  await t.close();
});

/** A client's mistake: a 4xx in the seed's error envelope, never a 500, and nothing written. */
async function expectRefusedUnchanged(send: () => Promise<LightMyRequestResponse>) {
  const before = await databaseDigest(t.ctx.db);
  const res = await send();
  expect(res.statusCode, res.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
  expect(res.json()).toMatchObject({
    status: 'failed',
    type: expect.any(String),
    message_error: expect.any(String),
  });
  expect(await databaseDigest(t.ctx.db)).toBe(before);
  return res;
}

// 309 digits and more read as Infinity. The input guards left a digit string past the schema's maximum for the
// schema to refuse as `too large`, but Ajv coerces it to Infinity and checks `maximum` on finite numbers only, so
// Infinity reached BigInt() or the database. The guards now put the largest double in its place (replacementOf).
const hugeDigits = '9'.repeat(400);

describe('an integer written as a string of hundreds of digits', () => {
  it('POST /api/transaction amount: 400 amount too large, not 500', async () => {
    const res = await expectRefusedUnchanged(() =>
      t.call(account, {
        method: 'POST',
        url: '/api/transaction',
        body: { email: 'p@example.com', order: 'o-1', subject: 's', amount: hugeDigits },
      }),
    );
    expect(res.json().errors).toEqual({ amount: 'too large' });
  });

  it('POST /api/wallet/payout amount: 400, not 500', async () => {
    await expectRefusedUnchanged(() =>
      t.call(account, {
        method: 'POST',
        url: '/api/wallet/payout',
        body: payoutBody({ order: 'huge-1', amount: hugeDigits }),
        sign: true,
      }),
    );
  });

  it('POST /api/nullification amount: 400, not 500', async () => {
    await expectRefusedUnchanged(() =>
      t.call(account, {
        method: 'POST',
        url: '/api/nullification',
        body: { id: paidId, amount: hugeDigits, subject: 'refund' },
        sign: true,
      }),
    );
  });

  it('POST /api/event service_sale: 400, not 500', async () => {
    await expectRefusedUnchanged(() =>
      t.call(account, {
        method: 'POST',
        url: '/api/event',
        body: {
          event: 'ev-huge',
          name: 'E',
          date_event: '2026-12-20',
          date_payment: '2026-12-22',
          date_closing_sales: '2026-12-19 23:59:00',
          service_sale: hugeDigits,
        },
      }),
    );
  });

  it('POST /api/sandbox/wallet/credit amount: 400, not 500', async () => {
    await expectRefusedUnchanged(() =>
      t.call(account, {
        method: 'POST',
        url: '/api/sandbox/wallet/credit',
        body: { amount: hugeDigits, currency: 'CLP' },
      }),
    );
  });

  it.each(['/api/wallet/list', '/api/wallet', '/api/transaction', '/api/notifications'])(
    'GET %s?page=<400 digits>: 400 page too large, not 500',
    async (path) => {
      const res = await expectRefusedUnchanged(() =>
        t.call(account, { method: 'GET', url: `${path}?page=${hugeDigits}`, sign: true }),
      );
      expect(res.json().errors).toEqual({ page: 'too large' });
    },
  );
});

// src/platform/time/time-format.ts parseLocal accepted any four-digit year. On PostgreSQL (node-postgres writes a
// Date before year 1 as `... BC`) these requests answered 200 (an empty or full list, a created event). On the
// embedded engine (the default, `npm start`) PGlite writes the Date with toISOString, "-000004-12-31T04:42:45.000Z"
// for year 0000 in America/Santiago and "0000-01-01T..." for 0001, which timestamptz refuses: a 500. A local date now
// names a year from limits.localYearMin (1900) to limits.localYearMax (9999), and is `invalid` otherwise.
describe('a date in year 0000 or 0001', () => {
  it.each([
    ['/api/transaction?date_init=0000-01-01', { date_init: 'invalid' }],
    ['/api/transaction?date_init=0001-01-01&date_end=2026-03-10', { date_init: 'invalid' }],
    ['/api/transaction?date_init=1899-12-31', { date_init: 'invalid' }],
    ['/api/notifications?date_init=0001-01-01', { date_init: 'invalid' }],
    [
      '/api/suclient/customers?date_init=0000-01-01&date_end=0000-01-01',
      { date_init: 'invalid', date_end: 'invalid' },
    ],
    [
      '/api/sususcription?date_init=0000-01-01&date_end=0000-01-05',
      { date_init: 'invalid', date_end: 'invalid' },
    ],
  ])('GET %s: 400 invalid on both engines, not 500', async (url, errors) => {
    const res = await expectRefusedUnchanged(() =>
      t.call(account, { method: 'GET', url, sign: true }),
    );
    expect(res.json().errors).toEqual(errors);
  });

  it('GET /api/transaction?date_init=1900-01-01: the first year taken', async () => {
    const res = await t.call(account, {
      method: 'GET',
      url: '/api/transaction?date_init=1900-01-01',
      sign: true,
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  });

  it('POST /api/event with date_closing_sales 0000-01-01: 400 invalid, not 500', async () => {
    const res = await expectRefusedUnchanged(() =>
      t.call(account, {
        method: 'POST',
        url: '/api/event',
        body: {
          event: 'ev-year-0',
          name: 'E',
          date_event: '2026-12-20',
          date_payment: '2026-12-22',
          date_closing_sales: '0000-01-01',
        },
      }),
    );
    expect(res.json().errors).toEqual({ date_closing_sales: 'invalid' });
  });
});

// src/platform/http/json-body.ts keysHeld() walked the parsed body recursively for the duplicate-key count; a body
// nested 20 000 deep (40 kB, far under the 1 MB body limit) overflowed the stack. The parser runs before
// authentication, so anyone could get the 500 (and its error log with a stack) on any JSON route. The walk is now a
// loop, and a body nested deeper than limits.inputDepthMax (64) is refused as `body: too deep`.
describe('a deeply nested JSON body', () => {
  const depth = 20_000;
  const nestedArray = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const nestedObject = `{"additional_parameters":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
  const postTransaction = (payload: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/transaction',
      headers: {
        authorization: `Bearer ${account.publicToken}`,
        'content-type': 'application/json',
      },
      payload,
    });
  /** A transaction whose body nests `levels` objects, itself the first. */
  const nestedTransaction = (levels: number) =>
    JSON.stringify({
      email: 'p@example.com',
      order: `nest-${levels}`,
      subject: 's',
      amount: 1000,
      additional_parameters: '@',
    }).replace('"@"', `${'{"a":'.repeat(levels - 1)}1${'}'.repeat(levels - 1)}`);

  it.each([
    ['an array inside an object', nestedArray],
    ['objects inside an object', nestedObject],
    ['a top-level array', `${'['.repeat(depth)}${']'.repeat(depth)}`],
  ])('POST /api/transaction with %s: 400 body too deep, not 500', async (_name, payload) => {
    const res = await expectRefusedUnchanged(() => postTransaction(payload));
    expect(res.json()).toMatchObject({
      message_error: 'body:nested deeper than 64 levels',
      errors: { body: 'too deep' },
    });
  });

  it('64 levels are taken, 65 are too deep', async () => {
    const taken = await postTransaction(nestedTransaction(64));
    expect(taken.statusCode, taken.body.slice(0, 300)).toBe(200);
    const refused = await expectRefusedUnchanged(() => postTransaction(nestedTransaction(65)));
    expect(refused.json().errors).toEqual({ body: 'too deep' });
  });

  it('without any credentials: still a 4xx, not 500', async () => {
    await expectRefusedUnchanged(() =>
      t.app.inject({
        method: 'POST',
        url: '/api/wallet/payout',
        headers: { 'content-type': 'application/json' },
        payload: nestedArray,
      }),
    );
  });
});

// The seed allows up to 4000 records a page and src/limits/http.ts walletPageMax allows page 1 000 000; the offset
// (page - 1) * per_page (src/modules/wallet/wallet-query.ts) went to cobro_wallet_summary's `p_offset INTEGER`
// (migration 0420), which overflowed past 2^31 - 1. Migration 0480 takes it as a BIGINT.
describe('a wallet page within the documented bounds whose offset passes 2^31', () => {
  it.each(['/api/wallet/list', '/api/wallet'])(
    'GET %s?page=1000000&per_page=4000 answers (an empty page), not 500',
    async (path) => {
      const res = await t.call(account, {
        method: 'GET',
        url: `${path}?page=1000000&per_page=4000`,
        sign: true,
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'success',
        filter: { page: 1_000_000, per_page: 4000 },
      });
    },
  );

  it('GET /api/wallet/list?page=536872&per_page=4000 (just past 2^31): not 500', async () => {
    const res = await t.call(account, {
      method: 'GET',
      url: '/api/wallet/list?page=536872&per_page=4000',
      sign: true,
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
  });
});

// src/modules/subscriptions/schemas.ts planUrl() is optionalText(240): the four plan URLs took any text, while
// every other URL the API takes (a transaction's urlreturn and urlnotify, a payout's url_notify, a mall's urlnotify)
// must be an http(s) URL. A plan was stored with `javascript:` as the page link the payer is sent back through
// (src/checkout/enrolment-html.ts renders url_success_payment as the "Volver al comercio" href) and with text no
// callback can ever reach as its notification URLs. createPlan now checks them as a transaction's are.
describe('a subscription plan with URLs that are not URLs', () => {
  it.each([
    ['url_success_payment', 'javascript:alert(document.domain)'],
    ['url_failed_payment', 'javascript:alert(1)'],
    ['url_notify_payment', 'not a url'],
    ['url_notify_suscription', 'ftp://shop.example/su'],
  ])(
    'POST /api/suplan with %s %j: 400 invalid, as a transaction refuses it',
    async (field, url) => {
      const trx = await t.call(account, {
        method: 'POST',
        url: '/api/transaction',
        body: { email: 'p@example.com', order: 'u-1', subject: 's', amount: 1000, urlreturn: url },
      });
      expect(trx.statusCode).toBe(400);
      const res = await expectRefusedUnchanged(() =>
        t.call(account, {
          method: 'POST',
          url: '/api/suplan',
          sign: true,
          body: { name: 'Plan', [field]: url },
        }),
      );
      expect(res.json().errors).toEqual({ [field]: 'invalid' });
    },
  );

  it('POST /api/suplan with http(s) URLs: taken, kept trimmed as a transaction keeps them', async () => {
    const created = await t.call(account, {
      method: 'POST',
      url: '/api/suplan',
      sign: true,
      body: {
        name: 'Plan',
        url_success_payment: 'https://shop.example/ok',
        url_failed_payment: 'http://shop.example/failed',
        url_notify_payment: ' https://shop.example/paid ',
        url_notify_suscription: 'https://shop.example/su',
      },
    });
    expect(created.statusCode, created.body.slice(0, 300)).toBe(200);
    const plan = await t.call(account, {
      method: 'GET',
      url: `/api/suplan/${created.json().id}`,
      sign: true,
    });
    expect(plan.json().plans).toMatchObject({
      url_notify_payment: 'https://shop.example/paid',
      url_notify_suscription: 'https://shop.example/su',
    });
  });
});
