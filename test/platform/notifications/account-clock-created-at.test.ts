// Decision 705, finding 4: docs/callbacks.md says every time of a callback reads on the account's clock in the
// sandbox ("a callback created after an advance shows its attempts and its delivery at the same advanced time"). A
// payout's result callback was created at the service's time (payout-transition.ts enqueuePayoutResult,
// `at: ctx.clock.now()`), and so were a refund's (refunds/transition.ts) and a dispute's (disputes/notify.ts): after
// an advance its created_at read days before its delivery, and GET /api/notifications' date filter (on created_at)
// filed it under the wrong day. Before the fix each test failed: created_at was ten days before delivered_at.
// Decision 725: a destination change's callback likewise (decision 705 had left it), its `changed_at` too.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { receiverPool } from '../../support/receiver.ts';
import { fund, payout } from '../../modules/wallet/wallet-helpers.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { nullify, paidSale } from '../../modules/refunds/helpers.ts';
import { disputeCall, openDispute } from '../../modules/disputes/helpers.ts';
import { setAccountUrls } from '../../../src/modules/accounts/callback-urls.ts';
import { createClient } from '../../modules/marketplace/helpers.ts';

let t: TestApp;
const receivers = receiverPool();
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());
afterEach(() => receivers.closeAll());

/** The service clock did not move between each callback's creation and its delivery: one clock, one time. */
async function expectOneClock(
  a: TestAccount,
  requests: readonly { headers: Record<string, unknown> }[],
): Promise<void> {
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    const id = String(request.headers['webhook-id']);
    const n = (await t.call(a, { method: 'GET', url: `/api/notifications/${id}` })).json()
      .notification;
    expect(n.status).toBe('delivered');
    expect(n.created_at).toBe(n.delivered_at);
  }
}

describe('callbacks created after a sandbox clock advance', () => {
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

  it("a refund's callbacks read created_at and delivered_at on the account's one clock", async () => {
    const a = await t.createAccount();
    const r = await receivers.start(() => 200);
    const set = await dispatch(
      ['accounts', 'set-urls', a.id, '--nullification-url', `${r.url}/refunds`],
      t.ctx,
    );
    expect(set.exitCode).toBe(0);
    const advanced = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 10 },
    });
    expect(advanced.statusCode).toBe(200);
    const sale = await paidSale(t, a, 10_000, 'times-2');
    expect((await nullify(t, a, { id: sale, amount: 4_000 })).statusCode).toBe(200);
    await deliverDueNotifications(t.ctx, { accountId: a.id });
    await expectOneClock(a, r.requests);
  });

  it("a dispute's callbacks read created_at and delivered_at on the account's one clock", async () => {
    const a = await t.createAccount();
    const r = await receivers.start(() => 200);
    expect((await setAccountUrls(t.ctx, a.id, { notify: `${r.url}/disputes` })).ok).toBe(true);
    const advanced = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 10 },
    });
    expect(advanced.statusCode).toBe(200);
    const sale = await paidSale(t, a, 6_000);
    const d = await openDispute(t, a, { transaction_id: sale, amount: 6_000 });
    await disputeCall(t, a, d.dispute.id, 'resolve', { outcome: 'lost' });
    await deliverDueNotifications(t.ctx, { accountId: a.id });
    await expectOneClock(a, r.requests);
  });

  it("a destination change's callback reads created_at, delivered_at and changed_at on the account's one clock", async () => {
    const a = await t.createAccount();
    const r = await receivers.start(() => 200);
    expect((await setAccountUrls(t.ctx, a.id, { notify: `${r.url}/changes` })).ok).toBe(true);
    const client = await createClient(t, a);
    const advanced = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 10 },
    });
    expect(advanced.statusCode).toBe(200);
    const moved = await t.call(a, {
      method: 'PUT',
      url: `/api/maclient/${client}`,
      sign: true,
      body: { bank: { num: '99998888', sbif: '0012' } },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    await deliverDueNotifications(t.ctx, { accountId: a.id });
    const changes = r.requests.filter((q) => q.path.startsWith('/changes'));
    expect(changes).toHaveLength(1);
    await expectOneClock(a, changes);
    // The change's own time is the account's: the callback says so, and so does the record it names.
    const id = String(changes[0]!.headers['webhook-id']);
    const n = (await t.call(a, { method: 'GET', url: `/api/notifications/${id}` })).json()
      .notification;
    expect(JSON.parse(changes[0]!.body).changed_at).toBe(n.created_at);
    const row = await t.ctx.db
      .selectFrom('destination_changes')
      .select('changed_at')
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row.changed_at.getTime()).toBe((await t.ctx.accountClock.now(a.id, t.ctx.db)).getTime());
  });
});
