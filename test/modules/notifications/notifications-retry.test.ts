import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { claimDueNotifications } from '../../../src/platform/notifications/claim.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';

let t: TestApp;
let merchant: TestAccount;
let other: TestAccount;
let receiver: Receiver;
let answer = 410;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Merchant');
  other = await t.createAccount('Other');
  receiver = await startReceiver(() => answer);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

function enqueue(accountId = merchant.id): Promise<string> {
  return t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId,
      url: receiver.url,
      eventType: 'payout.result',
      payload: { id: 'mor1' },
      at: t.clock.now(),
    }),
  );
}

const status = async (id: string) =>
  await t.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('POST /api/notifications/{id}/retry', () => {
  it('resends a failed callback with the same webhook-id and a fresh schedule', async () => {
    answer = 410;
    const id = await enqueue();
    await deliverDueNotifications(t.ctx);
    expect((await status(id)).status).toBe('failed');
    answer = 200;
    const res = await t.call(merchant, { method: 'POST', url: `/api/notifications/${id}/retry` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'success',
      notification: { id, status: 'pending', attempts: 1 },
    });
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    expect(receiver.requests.slice(-2).map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect(await status(id)).toMatchObject({
      status: 'delivered',
      attempts: 2,
      schedule_start_attempts: 1,
    });
  });

  it('moves a pending retry forward to now', async () => {
    answer = 500;
    const id = await enqueue();
    await deliverDueNotifications(t.ctx);
    expect(await deliverDueNotifications(t.ctx)).toBe(0);
    answer = 200;
    await t.call(merchant, { method: 'POST', url: `/api/notifications/${id}/retry` });
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    // The schedule is not restarted for a pending row: its second attempt is still its second.
    expect(await status(id)).toMatchObject({
      status: 'delivered',
      attempts: 2,
      schedule_start_attempts: 0,
    });
  });

  it('answers a rule failure while the callback is being delivered', async () => {
    const id = await enqueue();
    await claimDueNotifications(t.ctx, { limit: 10, leaseMs: 90_000 });
    const res = await t.call(merchant, { method: 'POST', url: `/api/notifications/${id}/retry` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'notification_delivering',
      message_error: expect.stringMatching(/being delivered/),
    });
    t.clock.advanceMs(91_000);
    await deliverDueNotifications(t.ctx);
  });

  it("is 404 for another account's callback and needs a token", async () => {
    const id = await enqueue(other.id);
    const res = await t.call(merchant, { method: 'POST', url: `/api/notifications/${id}/retry` });
    expect(res.statusCode).toBe(404);
    expect((await status(id)).status).toBe('pending');
    expect(
      (await t.call(null, { method: 'POST', url: `/api/notifications/${id}/retry` })).statusCode,
    ).toBe(401);
    await deliverDueNotifications(t.ctx);
  });
});

describe('sandbox clock advance', () => {
  it("delivers this account's retries that became due", async () => {
    answer = 500;
    const id = await enqueue();
    await deliverDueNotifications(t.ctx);
    answer = 200;
    const before = receiver.requests.length;
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { seconds: 10 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().processed.notifications).toBe(1);
    expect(receiver.requests.length).toBe(before + 1);
    expect(await status(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it("leaves other accounts' retries alone", async () => {
    answer = 500;
    const theirs = await enqueue(other.id);
    await deliverDueNotifications(t.ctx);
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { hours: 1 },
    });
    expect(res.json().processed.notifications).toBe(0);
    expect(await status(theirs)).toMatchObject({ status: 'pending', attempts: 1 });
  });
});

describe('cobro notifications', () => {
  it('list shows deliveries across accounts and filters', async () => {
    const all = await dispatch(['notifications', 'list', '--json'], t.ctx);
    expect(all.exitCode).toBe(0);
    const page = JSON.parse(all.stdout);
    expect(page.total).toBeGreaterThanOrEqual(6);
    expect(new Set(page.notifications.map((n: { account_id: string }) => n.account_id))).toEqual(
      new Set([merchant.id, other.id]),
    );
    const mine = JSON.parse(
      (
        await dispatch(
          ['notifications', 'list', '--json', '--account', other.id, '--status', 'pending'],
          t.ctx,
        )
      ).stdout,
    );
    expect(
      mine.notifications.every(
        (n: { account_id: string; status: string }) =>
          n.account_id === other.id && n.status === 'pending',
      ),
    ).toBe(true);
    const text = await dispatch(['notifications', 'list', '--limit', '2'], t.ctx);
    expect(text.stdout.trim().split('\n')).toHaveLength(3);
    expect((await dispatch(['notifications', 'list', '--status', 'nope'], t.ctx)).exitCode).toBe(2);
    expect((await dispatch(['notifications', 'list', '--limit', '0'], t.ctx)).exitCode).toBe(2);
  });

  it("show prints attempts and retry requeues any account's callback", async () => {
    answer = 410;
    const id = await enqueue(other.id);
    await deliverDueNotifications(t.ctx);
    const shown = await dispatch(['notifications', 'show', id], t.ctx);
    expect(shown.stdout).toMatch(/#1 .* failed +410/);
    answer = 200;
    const retried = await dispatch(['notifications', 'retry', id], t.ctx);
    expect(retried).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^queued: msg_/) });
    await deliverDueNotifications(t.ctx);
    expect((await status(id)).status).toBe('delivered');
    expect((await dispatch(['notifications', 'retry', 'msg_missing'], t.ctx)).exitCode).toBe(1);
    expect((await dispatch(['notifications', 'show', 'msg_missing'], t.ctx)).exitCode).toBe(1);
    expect((await dispatch(['notifications', 'retry'], t.ctx)).exitCode).toBe(2);
  });
});
