// Issue 36: the dispute callbacks reach the account's notify URL through the outbox like every callback: signed
// with the account's webhook secret, one per change, the dispute in the body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { setAccountUrls } from '../../../src/modules/accounts/callback-urls.ts';
import { paidSale } from '../refunds/helpers.ts';
import { disputeCall, openDispute } from './helpers.ts';
import { webhookSignature } from '../../../src/platform/notifications/sign.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  [t, receiver] = await Promise.all([startTestApp(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([t.close(), receiver.close()]);
});

describe('dispute callbacks', () => {
  it('delivers dispute.opened and dispute.lost, signed, to the notify URL', async () => {
    const a = await t.createAccount();
    expect((await setAccountUrls(t.ctx, a.id, { notify: `${receiver.url}/disputes` })).ok).toBe(
      true,
    );
    const sale = await paidSale(t, a, 6_000);
    const d = await openDispute(t, a, { transaction_id: sale, amount: 6_000 });
    await disputeCall(t, a, d.dispute.id, 'resolve', { outcome: 'lost' });
    await deliverDueNotifications(t.ctx, { accountId: a.id });
    const got = receiver.requests.filter((r) => r.path === '/disputes');
    expect(got.map((r) => JSON.parse(r.body).type).sort()).toEqual([
      'dispute.lost',
      'dispute.opened',
    ]);
    for (const r of got) {
      expect(JSON.parse(r.body).dispute.id).toBe(d.dispute.id);
      expect(r.headers['webhook-signature']).toBe(
        webhookSignature(
          a.webhookSecret,
          String(r.headers['webhook-id']),
          Number(r.headers['webhook-timestamp']),
          r.body,
        ),
      );
    }
  });
});
