// A callback goes to the URL it was written with: an account's URL changed between its writing and its delivery moves
// none already written, resends included (docs/callbacks.md, decision 970).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { setAccountUrls } from '../../../src/modules/accounts/callback-urls.ts';
import { retryNotification } from '../../../src/modules/notifications/service.ts';
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

describe("an account's notify URL changed with a callback pending", () => {
  it('the callback and its resend still go to the URL it was written with', async () => {
    const before = await receivers.start();
    const after = await receivers.start();
    expect(await setAccountUrls(t.ctx, account.id, { notify: `${before.url}/n` })).toMatchObject({
      ok: true,
    });
    const id = await t.ctx.db.transaction().execute((tx) =>
      enqueueCallback(tx, {
        accountId: account.id,
        url: `${before.url}/n`,
        eventType: 'destination.changed',
        payload: { id: 'dch1', type: 'destination.changed' },
        at: t.clock.now(),
      }),
    );
    expect(await setAccountUrls(t.ctx, account.id, { notify: `${after.url}/n` })).toMatchObject({
      ok: true,
    });
    await deliverDueNotifications(t.ctx);
    expect(await retryNotification(t.ctx, id, account.id)).toMatchObject({
      url: `${before.url}/n`,
    });
    await deliverDueNotifications(t.ctx);
    expect(before.requests.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect(after.requests).toHaveLength(0);
  });
});
