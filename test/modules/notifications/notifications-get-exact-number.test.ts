// GET /api/notifications/{id} shows the payload a callback carried (decision 930). The body sent is written exact
// (a bigint as its digits, decision 815), but the view read the jsonb column through the database driver's JSON
// parse, so a sale's number past 2^53 - 1 showed as another (9007199254740993 as 9007199254740992). The path's id
// is a string (`msg_...`) and every other field an INTEGER column: the payload was the one place rounded.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

it('shows a payload number past 2^53 - 1 exactly, as the callback sent it', async () => {
  const merchant = await t.createAccount('Exacta');
  const id = await t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId: merchant.id,
      url: 'https://merchant.example/pay',
      eventType: 'subscription.charge',
      payload: { transaction_id: 9007199254740993n, amount: 9990, ratio: 0.5, name: 'Caja' },
      at: t.clock.now(),
    }),
  );
  const res = await t.call(merchant, { method: 'GET', url: `/api/notifications/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body).toContain(
    '"payload":{"transaction_id":9007199254740993,"amount":9990,"ratio":0.5,"name":"Caja"}',
  );
  const sent = await t.ctx.db
    .selectFrom('notifications')
    .select('body')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  expect(sent.body).toContain('"transaction_id":9007199254740993,');
});

it('shows a row written before the body was kept from its jsonb, exactly too', async () => {
  const merchant = await t.createAccount('Antigua');
  const id = await t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId: merchant.id,
      url: 'https://merchant.example/pay',
      eventType: 'subscription.charge',
      payload: { transaction_id: 9007199254740995n },
      at: t.clock.now(),
    }),
  );
  await t.ctx.db.updateTable('notifications').set({ body: null }).where('id', '=', id).execute();
  const res = await t.call(merchant, { method: 'GET', url: `/api/notifications/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body).toContain('"payload":{"transaction_id":9007199254740995}');
});
