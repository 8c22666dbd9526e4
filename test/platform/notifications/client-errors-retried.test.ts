// docs/callbacks.md: any answer but a 2xx is a failed attempt retried on the schedule, a 4xx as a 5xx; only 410 Gone
// stops at once. A receiver on 127.0.0.1 answers each status once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { receiverPool } from '../../support/receiver.ts';

let t: TestApp;
let account: TestAccount;
const receivers = receiverPool();
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(() => t.close());
afterEach(() => receivers.closeAll());

describe('answers other than 2xx', () => {
  it('retries 400, 401, 404, 429, 500 and 503 about 5 s later, and stops on 410', async () => {
    const statuses = [400, 401, 404, 429, 500, 503, 410];
    const ids = new Map<number, string>();
    for (const status of statuses) {
      const r = await receivers.start(() => status);
      ids.set(
        status,
        await t.ctx.db.transaction().execute((tx) =>
          enqueueCallback(tx, {
            accountId: account.id,
            url: r.url,
            eventType: 'transaction.result',
            payload: { order: String(status) },
            at: t.clock.now(),
          }),
        ),
      );
    }
    await deliverDueNotifications(t.ctx);
    for (const [status, id] of ids) {
      const row = await t.ctx.db
        .selectFrom('notifications')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.last_status_code, String(status)).toBe(status);
      if (status === 410) {
        expect(row.status).toBe('failed');
        continue;
      }
      expect(row.status, String(status)).toBe('pending');
      const inMs = row.next_attempt_at.getTime() - t.clock.now().getTime();
      expect(inMs, String(status)).toBeGreaterThanOrEqual(4500);
      expect(inMs, String(status)).toBeLessThanOrEqual(5500);
    }
  });
});
