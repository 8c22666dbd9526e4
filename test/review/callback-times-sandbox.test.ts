// Review: docs/callbacks.md says every time of a callback reads on the account's clock in the sandbox ("a callback
// created after an advance shows its attempts and its delivery at the same advanced time"). A transaction's result
// callback does; a payout's result callback is created at the service's time (payout-transition.ts
// enqueuePayoutResult, `at: ctx.clock.now()`), so after an advance its created_at reads days before its delivery,
// and GET /api/notifications' date filter (on created_at) files it under the wrong day.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { receiverPool } from '../support/receiver.ts';
import { fund, payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
const receivers = receiverPool();
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());
afterEach(() => receivers.closeAll());

describe('a payout callback after a sandbox clock advance', () => {
  it("reads created_at and delivered_at on the account's one clock", async () => {
    const a = await t.createAccount();
    const r = await receivers.start(() => 200);
    await fund(t, a, 10_000);
    const advanced = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 10 },
    });
    expect(advanced.statusCode).toBe(200);
    const created = await payout(t, a, {
      amount: 1000,
      order: 'times-1',
      url_notify: `${r.url}/n`,
    });
    expect(created.json().status).toBe('success');
    await deliverDueNotifications(t.ctx);
    expect(r.requests).toHaveLength(1);
    const id = String(r.requests[0]!.headers['webhook-id']);
    const shown = await t.call(a, { method: 'GET', url: `/api/notifications/${id}` });
    expect(shown.statusCode).toBe(200);
    const n = shown.json().notification;
    expect(n.status).toBe('delivered');
    // The service clock did not move between the payout and its delivery: one clock, one time.
    expect({ created_at: n.created_at, started_at: n.attempts_log[0].started_at }).toEqual({
      created_at: n.delivered_at,
      started_at: n.delivered_at,
    });
  });
});
