// A callback's times read on one clock (issue 32 point 9): under an advanced sandbox clock a sale's callback is
// created at the account's time, so its attempts and its delivery are stamped at the account's time too, and never
// read as earlier than the callback's creation (they did: the service's time, days before).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { payByCard } from '../../modules/transactions/helpers.ts';

let t: TestApp;
let shop: TestAccount;
let receiver: Receiver;
const answers = [503, 200];

beforeAll(async () => {
  t = await startTestApp();
  shop = await t.createAccount('Tienda con reloj');
  receiver = await startReceiver((_request, index) => answers[index] ?? 200);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('callback times under an advanced sandbox clock', () => {
  it("stamps attempts and delivery at the account's time, after the callback's creation", async () => {
    expect(
      (
        await t.call(shop, {
          method: 'POST',
          url: '/api/sandbox/clock/advance',
          body: { hours: 48 },
        })
      ).statusCode,
    ).toBe(200);
    const { created } = await payByCard(t, shop, { urlnotify: `${receiver.url}/notify` });
    await deliverDueNotifications(t.ctx);
    // The first answer was 503: the retry is due on the account's clock; move it there and deliver again.
    expect(
      (
        await t.call(shop, {
          method: 'POST',
          url: '/api/sandbox/clock/advance',
          body: { hours: 1 },
        })
      ).statusCode,
    ).toBe(200);
    await deliverDueNotifications(t.ctx);
    const list = await t.call(shop, { method: 'GET', url: '/api/notifications' });
    const summary = (list.json().notifications as { id: string; payload?: unknown }[])[0]!;
    const one = (
      await t.call(shop, { method: 'GET', url: `/api/notifications/${summary.id}` })
    ).json().notification;
    expect(one.status).toBe('delivered');
    expect(one.attempts_log).toHaveLength(2);
    const times = [
      one.created_at,
      ...one.attempts_log.flatMap((a: { started_at: string; finished_at: string }) => [
        a.started_at,
        a.finished_at,
      ]),
      one.delivered_at,
    ];
    expect([...times].sort()).toEqual(times);
    // 48 hours ahead of the service clock, as the callback's creation is.
    const gapMs =
      Date.parse(`${one.delivered_at.replace(' ', 'T')}Z`) -
      Date.parse(`${one.created_at.replace(' ', 'T')}Z`);
    expect(gapMs).toBeGreaterThanOrEqual(0);
    expect(gapMs).toBeLessThan(2 * 3_600_000);
    expect(created.id).toBeTruthy();
  });
});
