// Production mode end to end: callbacks to addresses inside the service's network are refused at delivery.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import type { BaseLookup } from '../../../src/platform/notifications/ssrf-guard.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';

let t: TestApp;
let account: TestAccount;
let receiver: Receiver;

// Stands in for DNS so no real resolver or network is involved: the names resolve where an attacker would point them.
const attackerDns: BaseLookup = (hostname, _options, callback) => {
  const table: Record<string, string> = {
    'shop.example': '127.0.0.1',
    'intranet.example': '10.0.0.7',
  };
  const address = table[hostname];
  if (address === undefined)
    return callback(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []);
  callback(null, [{ address, family: 4 }]);
};

beforeAll(async () => {
  t = await startTestApp({
    env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex') },
  });
  account = await t.createAccount();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function attempt(url: string) {
  const id = await t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId: account.id,
      url,
      eventType: 'payout.result',
      payload: { id: 'mor1' },
      at: t.clock.now(),
    }),
  );
  expect(await deliverDueNotifications(t.ctx, { resolve: attackerDns })).toBe(1);
  return t.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

describe('production callback addresses', () => {
  it.each([
    ['https://shop.example:0/notify', /shop\.example resolves to 127\.0\.0\.1, a loopback address/],
    [
      'https://intranet.example/notify',
      /intranet\.example resolves to 10\.0\.0\.7, a private address/,
    ],
    ['https://127.0.0.1/notify', /127\.0\.0\.1 is a loopback address/],
    ['https://0x7f.1/notify', /127\.0\.0\.1 is a loopback address/],
    ['https://10.1.2.3/notify', /10\.1\.2\.3 is a private address/],
    ['http://93.184.216.34/notify', /http URLs are not allowed in production mode/],
  ])('refuses %s and schedules a retry', async (url, reason) => {
    const row = await attempt(url.replace(':0', `:${receiver.port}`));
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(row.last_error).toMatch(reason);
    expect(row.last_error).toMatch(/^refused: /);
  });

  it('never reached the receiver', () => {
    expect(receiver.requests).toHaveLength(0);
  });
});
