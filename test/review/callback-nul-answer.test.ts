import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { receiverPool } from '../support/receiver.ts';

let t: TestApp;
let account: TestAccount;
let other: TestAccount;
const receivers = receiverPool();
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
  other = await t.createAccount();
});
afterAll(async () => t.close());
afterEach(() => receivers.closeAll());

function enqueue(url: string, accountId: string): Promise<string> {
  return t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId,
      url,
      eventType: 'transaction.result',
      payload: { order: '1' },
      at: t.clock.now(),
    }),
  );
}
const row = (id: string) =>
  t.ctx.db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('a receiver answer with a NUL byte', () => {
  it("does not keep another merchant's delivered callback from being recorded", async () => {
    const hostile = await receivers.start(() => ({ status: 200, body: 'ok\u0000' }));
    const honest = await receivers.start(() => 200);
    const mine = await enqueue(hostile.url, account.id);
    const theirs = await enqueue(honest.url, other.id);
    for (let i = 0; i < 12; i++) {
      await deliverDueNotifications(t.ctx);
      t.clock.advanceMs(91_000);
    }
    // The honest receiver answered 200 the first time: one delivery, recorded as delivered.
    expect(honest.requests).toHaveLength(1);
    expect(await row(theirs)).toMatchObject({ status: 'delivered', attempts: 1 });
    // The hostile receiver answered 200 too: its callback is delivered, its excerpt stored without the NUL.
    expect(await row(mine)).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
