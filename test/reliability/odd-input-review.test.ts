// Review of the merchant API's handling of odd input (branch review-input): each case is a client's mistake that
// must get the seed's JSON error (`{"status":"failed","type":...,"message_error":...}`, HTTP 4xx) and change
// nothing. Each fails today with an HTTP 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { databaseDigest } from '../support/db-digest.ts';
import { payByCard } from '../modules/transactions/helpers.ts';
import { payoutBody } from '../modules/wallet/wallet-helpers.ts';

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

// 309 digits and more read as Infinity. src/platform/http/input-guards.ts (replacementOf, the integer branch) leaves
// a digit string past the schema's maximum for the schema to refuse as `too large`, but Ajv coerces it to Infinity
// and Infinity passes `maximum` (Ajv's coerced comparison), so Infinity reaches BigInt() or the database.
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

// src/platform/time/time-format.ts parseLocal accepts any four-digit year. On PostgreSQL (node-postgres writes a
// Date before year 1 as `... BC`) these requests answer 200 (an empty or full list, a created event). On the embedded
// engine (the default, `npm start`) PGlite writes the Date with toISOString, "-000004-12-31T04:42:45.000Z" for year
// 0000 in America/Santiago and "0000-01-01T..." for 0001, which timestamptz refuses, so the database error is a 500.
async function expectAnsweredNot500(send: () => Promise<LightMyRequestResponse>) {
  const res = await send();
  expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
  if (res.statusCode >= 400) expect(res.json()).toMatchObject({ status: 'failed' });
  return res;
}

describe('a date in year 0000 or 0001', () => {
  it.each([
    '/api/transaction?date_init=0000-01-01',
    '/api/transaction?date_init=0001-01-01&date_end=2026-03-10',
    '/api/notifications?date_init=0001-01-01',
    '/api/suclient/customers?date_init=0000-01-01&date_end=0000-01-01',
    '/api/sususcription?date_init=0000-01-01&date_end=0000-01-05',
  ])('GET %s: answered (200 on PostgreSQL), not 500', async (url) => {
    await expectAnsweredNot500(() => t.call(account, { method: 'GET', url, sign: true }));
  });

  it('POST /api/event with date_closing_sales 0000-01-01: answered (200 on PostgreSQL), not 500', async () => {
    await expectAnsweredNot500(() =>
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
  });
});

// src/platform/http/json-body.ts keysHeld() walks the parsed body recursively for the duplicate-key count; a body
// nested 20 000 deep (40 kB, far under the 1 MB body limit) overflows the stack. The parser runs before
// authentication, so anyone can get the 500 (and its error log with a stack) on any JSON route.
describe('a deeply nested JSON body', () => {
  const depth = 20_000;
  const nestedArray = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const nestedObject = `{"additional_parameters":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;

  it.each([
    ['an array inside an object', nestedArray],
    ['objects inside an object', nestedObject],
    ['a top-level array', `${'['.repeat(depth)}${']'.repeat(depth)}`],
  ])('POST /api/transaction with %s: 400, not 500', async (_name, payload) => {
    await expectRefusedUnchanged(() =>
      t.app.inject({
        method: 'POST',
        url: '/api/transaction',
        headers: {
          authorization: `Bearer ${account.publicToken}`,
          'content-type': 'application/json',
        },
        payload,
      }),
    );
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
// (page - 1) * per_page (src/modules/wallet/wallet-query.ts:81) goes to cobro_wallet_summary's `p_offset INTEGER`
// (src/platform/db/migrations/0420-wallet-summary-function.ts:14), which overflows past 2^31 - 1.
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

// src/modules/subscriptions/schemas.ts:178 planUrl() is optionalText(240): the four plan URLs take any text, while
// every other URL the API takes (a transaction's urlreturn and urlnotify, a payout's url_notify, a mall's urlnotify)
// must be an http(s) URL. A plan is stored with `javascript:` as the page link the payer is sent back through
// (src/checkout/enrolment-html.ts:58 renders url_success_payment as the "Volver al comercio" href) and with text no
// callback can ever reach as its notification URLs; the merchant learns of it only when its callbacks never come.
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
});
