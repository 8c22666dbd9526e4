// Decision 983: a mall's store line carries a callback URL chosen by the mall's account, written on the store's
// transaction in the store's name. An origin trusted for the store alone (CALLBACK_TRUSTED_ORIGINS, decision 987) is
// not the mall account's to aim at: its line's urlnotify is checked for the caller too, or any account knowing the
// store's public token sends callbacks signed with the store's secret to any path of the store's internal service.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { setWebpayProcessor } from '../../support/webpay-shop.ts';

const env = { COBRO_MODE: 'production', COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex') };
let internal: Receiver;
let base: TestApp;
let t: TestApp;
let store: TestAccount;
let mallOwner: TestAccount;

beforeAll(async () => {
  internal = await startReceiver(() => ({ status: 200, body: 'ok' }));
  base = await startTestApp({ env });
  store = await base.createAccount('Store with the internal receiver');
  mallOwner = await base.createAccount('Another merchant');
  for (const account of [store, mallOwner]) {
    const configured = await setWebpayProcessor(
      base,
      account.id,
      { commerceCode: '597055555532', apiKey: 'key' },
      '--environment',
      'integration',
    );
    expect(configured.exitCode).toBe(0);
  }
  t = await startTestApp({
    sharing: base,
    env: { ...env, CALLBACK_TRUSTED_ORIGINS: `${internal.url}@${store.id}` },
  });
});
afterAll(async () => {
  await t?.close();
  await base?.close();
  await internal.close();
});

function mall(account: TestAccount, order: number) {
  return t.call(account, {
    method: 'POST',
    url: '/api/mall',
    sign: true,
    body: {
      email: 'pagador@example.com',
      payment: 1,
      order,
      urlreturn: 'https://shop.example.com/return',
      merchant: [
        [store.publicToken, 25000, 'item', null, `line-${order}`, `${internal.url}/admin/config`],
      ],
    },
  });
}

describe("a mall line's urlnotify at an origin trusted for the store alone", () => {
  it("is refused to another account's mall, writing no transaction", async () => {
    const before = await t.ctx.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await mall(mallOwner, 7001);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errors: { 'merchant.0.5': 'invalid' } });
    const after = await t.ctx.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it("is taken in the store's own mall", async () => {
    const res = await mall(store, 7002);
    expect(res.statusCode).toBe(200);
  });
});
