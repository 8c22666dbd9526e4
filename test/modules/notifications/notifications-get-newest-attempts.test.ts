// Decision 705, finding 5: GET /api/notifications/{id} promises "one callback with its payload and every attempt",
// but showNotification read the attempts oldest first with a limit of notificationAttemptsMax * 20 (200): once a
// callback had been resent that often, its newest attempts, the ones a merchant looks at after a resend, were the
// ones left out. Before the fix this failed: attempt 201 was missing from attempts_log. Now the newest 200 are shown,
// oldest first.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { notificationAttemptsMax } from '../../../src/limits/index.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { receiverPool } from '../../support/receiver.ts';

let t: TestApp;
const receivers = receiverPool();
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());
afterEach(() => receivers.closeAll());

describe('a callback resent many times', () => {
  it('shows its latest attempt in GET /api/notifications/{id}', async () => {
    const a = await t.createAccount();
    const r = await receivers.start(() => 200);
    const id = await t.ctx.db.transaction().execute((tx) =>
      enqueueCallback(tx, {
        accountId: a.id,
        url: r.url,
        eventType: 'transaction.result',
        payload: { order: '1' },
        at: t.clock.now(),
      }),
    );
    const sends = notificationAttemptsMax * 20 + 1;
    await deliverDueNotifications(t.ctx);
    for (let i = 1; i < sends; i++) {
      const res = await t.call(a, { method: 'POST', url: `/api/notifications/${id}/retry` });
      expect(res.json().status).toBe('success');
      await deliverDueNotifications(t.ctx);
    }
    expect(r.requests).toHaveLength(sends);
    const shown = (await t.call(a, { method: 'GET', url: `/api/notifications/${id}` })).json();
    expect(shown.notification.attempts).toBe(sends);
    const log = shown.notification.attempts_log as { attempt: number }[];
    expect(log.map((e) => e.attempt)).toContain(sends);
  }, 120_000);
});
