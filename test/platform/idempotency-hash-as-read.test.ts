// Decision 940 (1): a retry with the same Idempotency-Key that writes a value the other way clients write it (an
// integer as a string, a string as a number) means the same request and replays the first answer. Typed fields are
// coerced by the schema before the hash; the parts a module reads by hand (a mall's tuples, an event's
// beneficiaries, a membership's pairs) were hashed as sent, so the retry was 422. A retry that means another thing
// is still 422, and makes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { createClient } from '../modules/marketplace/helpers.ts';

let t: TestApp;
let owner: TestAccount;
let store: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount('Mall Reintentos');
  store = await t.createAccount('Tienda Reintentos');
});
afterAll(async () => {
  await t.close();
});

const keyed = (url: string, body: unknown, key: string, sign = false) =>
  t.call(owner, { method: 'POST', url, body, sign, headers: { 'idempotency-key': key } });

/** The first request, its retry written another way: replayed, same answer. Then a change of meaning: 422. */
async function expectReplayThenMismatch(
  url: string,
  key: string,
  first: unknown,
  sameMeaning: unknown,
  otherMeaning: unknown,
  sign = false,
) {
  const a = await keyed(url, first, key, sign);
  expect(a.statusCode, a.body).toBe(200);
  const b = await keyed(url, sameMeaning, key, sign);
  expect(b.statusCode, b.body).toBe(200);
  expect(b.headers['idempotent-replayed']).toBe('true');
  expect(b.body).toBe(a.body);
  const c = await keyed(url, otherMeaning, key, sign);
  expect(c.statusCode, c.body).toBe(422);
  expect(c.json().message_error).toBe(
    'this Idempotency-Key was already used with other parameters',
  );
}

const mall = (merchant: unknown[][], order = 'retry-mall-1') => ({
  email: 'pagador@example.com',
  payment: 1,
  order,
  urlreturn: 'https://shop.example.com/return',
  merchant,
});

describe('a keyed retry hashed as the request reads', () => {
  it('POST /api/mall: a tuple amount "30000" for 30000, an order 7 for "7", replays; another amount is 422', async () => {
    await expectReplayThenMismatch(
      '/api/mall',
      'mall-retry-1',
      mall([[store.publicToken, 30000, 'Polera', null, '7']]),
      mall([[store.publicToken, '30000', 'Polera', null, 7]]),
      mall([[store.publicToken, '30001', 'Polera', null, 7]]),
      true,
    );
    const malls = await t.ctx.db
      .selectFrom('malls')
      .select('id')
      .where('account_id', '=', owner.id)
      .where('order', '=', 'retry-mall-1')
      .execute();
    expect(malls).toHaveLength(1);
  });

  it('POST /api/transaction: amount and order written the other way replay; another amount is 422', async () => {
    const tx = (amount: unknown, order: unknown) => ({
      email: 'pagador@example.com',
      order,
      subject: 'Compra',
      amount,
      urlnotify: 'https://shop.example/notify',
    });
    await expectReplayThenMismatch(
      '/api/transaction',
      'trx-retry-1',
      tx(30000, '4411'),
      tx('30000', 4411),
      tx('30001', 4411),
    );
  });

  it('POST /api/event: a beneficiary\'s percent 50 for "50" replays; 60 is 422', async () => {
    const event = (percent: unknown) => ({
      name: 'Concierto',
      event: 'retry-ev-1',
      date_event: '2030-12-20',
      date_payment: '2030-12-22',
      date_closing_sales: '2030-12-19 23:59:00',
      affiliation: [['socio@example.com', percent]],
    });
    await expectReplayThenMismatch(
      '/api/event',
      'event-retry-1',
      event(50),
      event('50'),
      event('60'),
    );
  });

  it('POST /api/maaffiliation: a pair\'s percentage 80 for "80" replays; 70 is 422', async () => {
    const client = await createClient(t, owner);
    const membership = (percentage: unknown) => ({
      name: 'market1',
      percentage: '20',
      affiliation: [[client, percentage]],
    });
    await expectReplayThenMismatch(
      '/api/maaffiliation',
      'ma-retry-1',
      membership(80),
      membership('80'),
      membership('70'),
    );
  });

  it('POST /api/maaffiliation: the merchant\'s percentage 1e1 for "10.00" replays; the string "1e1" is 422', async () => {
    // Decision 1180: the merchant's percentage reads a JSON number from its text, as a pair's does, so it is hashed
    // as read too: the string "1e1" (refused) is not the number 1e1 (10) though the guards hand both on as "1e1".
    const client = await createClient(t, owner);
    const raw = (percentage: string) =>
      `{"name":"market2","percentage":${percentage},"affiliation":[["${client}","90"]]}`;
    const send = (percentage: string) =>
      t.call(owner, {
        method: 'POST',
        url: '/api/maaffiliation',
        body: raw(percentage),
        headers: { 'content-type': 'application/json', 'idempotency-key': 'ma-retry-2' },
      });
    const a = await send('1e1');
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().percentage).toBe('10.00');
    const b = await send('"10.00"');
    expect(b.statusCode, b.body).toBe(200);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body).toBe(a.body);
    const c = await send('"1e1"');
    expect(c.statusCode, c.body).toBe(422);
  });
});
