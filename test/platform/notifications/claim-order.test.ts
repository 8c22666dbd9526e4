// The claim (migration 0270's function, decision 270) walks the due index in the queue's order and stops at the
// batch: these pin what it must still take, in which order, across accounts and their sandbox clocks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { claimDueNotifications } from '../../../src/platform/notifications/claim.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const minuteMs = 60_000;
const leaseMs = 90_000;

function enqueue(accountId: string, seq: number, offsetMs: number): Promise<string> {
  const at = new Date(t.clock.now().getTime() + offsetMs);
  return t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId,
      url: 'http://127.0.0.1:9/cb',
      eventType: 'bench.callback',
      payload: { seq },
      at,
    }),
  );
}

describe('callback claim', () => {
  it('takes the due rows oldest first, across accounts, each account at its own sandbox time, a batch at a time', async () => {
    const ahead = await t.createAccount();
    const plain = await t.createAccount();
    expect(await t.ctx.accountClock.advance(ahead.id, 120 * minuteMs, t.ctx.db)).toBe(
      120 * minuteMs,
    );
    // Not due on the service clock, due on its account's (two hours ahead).
    const aheadLater = await enqueue(ahead.id, 1, 60 * minuteMs);
    const plainOldest = await enqueue(plain.id, 2, -5 * minuteMs);
    const plainNow = await enqueue(plain.id, 3, 0);
    // Due on nobody's clock yet.
    const plainLater = await enqueue(plain.id, 4, 60 * minuteMs);
    const aheadOld = await enqueue(ahead.id, 5, -1 * minuteMs);

    const first = await claimDueNotifications(t.ctx, { limit: 2, leaseMs });
    expect(first.map((c) => c.id)).toEqual([plainOldest, aheadOld]);
    const second = await claimDueNotifications(t.ctx, { limit: 10, leaseMs });
    expect(second.map((c) => c.id)).toEqual([plainNow, aheadLater]);
    expect(second.every((c) => c.attemptNo === 1 && c.scheduleAttemptNo === 1)).toBe(true);
    expect(await claimDueNotifications(t.ctx, { limit: 10, leaseMs })).toEqual([]);

    // Leased rows come back once their lease has run out, in the same order, their attempts marked lost.
    t.clock.advanceMs(leaseMs + 1000);
    const retaken = await claimDueNotifications(t.ctx, { limit: 10, leaseMs, accountId: plain.id });
    expect(retaken.map((c) => [c.id, c.attemptNo])).toEqual([
      [plainOldest, 2],
      [plainNow, 2],
    ]);
    const lost = await t.ctx.db
      .selectFrom('notification_attempts')
      .select(['notification_id', 'outcome'])
      .where('notification_id', 'in', [plainOldest, plainNow])
      .where('attempt_no', '=', 1)
      .orderBy('notification_id')
      .execute();
    expect(lost.map((a) => a.outcome)).toEqual(['lost', 'lost']);
    expect(
      (
        await t.ctx.db
          .selectFrom('notifications')
          .select('status')
          .where('id', '=', plainLater)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('pending');
  });
});
