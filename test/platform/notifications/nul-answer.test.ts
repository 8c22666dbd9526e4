// Decision 705, finding 1. A receiver's answer holding a NUL byte (U+0000) went into the attempt's response excerpt,
// which a PostgreSQL text column refuses: the one statement recording the group of up to 128 answers failed, was only
// logged, and every callback of the group stayed `delivering`, was sent again after its lease and ended `failed`,
// though each receiver had answered 200. Before the fix both tests below failed: the honest receiver's callback was
// sent again and never recorded delivered, on PGlite and PostgreSQL alike.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { claimDueNotifications } from '../../../src/platform/notifications/claim.ts';
import { attemptRecorder } from '../../../src/platform/notifications/attempt-record.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { receiverPool } from '../../support/receiver.ts';

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
    const attempt = await t.ctx.db
      .selectFrom('notification_attempts')
      .select('response_excerpt')
      .where('notification_id', '=', mine)
      .executeTakeFirstOrThrow();
    expect(attempt.response_excerpt).toBe('ok\uFFFD');
  });

  it('a group the database refuses is recorded one answer at a time', async () => {
    const r = await receivers.start(() => 200);
    const refused = await enqueue(r.url, account.id);
    const taken = await enqueue(r.url, other.id);
    const claimed = await claimDueNotifications(t.ctx, { limit: 2, leaseMs: 90_000 });
    expect(claimed.map((c) => c.id).sort()).toEqual([refused, taken].sort());
    const recorder = attemptRecorder(t.ctx);
    for (const c of claimed)
      recorder.add({
        row: c,
        // A latency no integer column holds stands for any answer the database refuses.
        result: {
          statusCode: 200,
          error: null,
          responseExcerpt: 'ok',
          latencyMs: c.id === refused ? 2 ** 31 : 5,
        },
      });
    await recorder.flush();
    expect(await row(taken)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await row(refused)).toMatchObject({ status: 'delivering' });
  });
});
