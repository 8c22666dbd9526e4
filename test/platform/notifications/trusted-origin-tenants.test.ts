// A trusted callback origin (CALLBACK_TRUSTED_ORIGINS, decision 151) is the operator's service on its own network: no
// merchant account may read it through its callbacks (decision 987). Two accounts, the operator's service on
// 127.0.0.1 answering a secret: an origin named alone stays open to every account, as before, but no account reads
// more than the status of its answers; an origin naming its accounts is refused to the others, at creation and at
// delivery, and its own account keeps the excerpt.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { setWebpayProcessor } from '../../support/webpay-shop.ts';

const secret = 'db_password=hunter2-internal-only';
const env = { COBRO_MODE: 'production', COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex') };
let internal: Receiver;
let open: TestApp;
let scoped: TestApp;
let owner: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  internal = await startReceiver(() => ({ status: 200, body: secret }));
  // The configuration of decision 151: the origin named alone.
  open = await startTestApp({ env: { ...env, CALLBACK_TRUSTED_ORIGINS: internal.url } });
  owner = await open.createAccount('Owner of the internal receiver');
  other = await open.createAccount('Another merchant');
  for (const account of [owner, other]) {
    const configured = await setWebpayProcessor(
      open,
      account.id,
      { commerceCode: '597055555532', apiKey: 'key' },
      '--environment',
      'integration',
    );
    expect(configured.exitCode).toBe(0);
  }
});
afterAll(async () => {
  await scoped?.close();
  await open?.close();
  await internal.close();
});

function createSale(t: TestApp, account: TestAccount, order: string) {
  return t.call(account, {
    method: 'POST',
    url: '/api/transaction',
    body: {
      email: 'payer@example.com',
      order,
      subject: 'Compra',
      amount: 25000,
      urlnotify: `${internal.url}/admin/config`,
    },
  });
}

/** The sale's callback, written as its payment's result writes it, delivered, then read back by the account. */
async function deliveredAndRead(t: TestApp, account: TestAccount, saleId: string) {
  const { urlnotify } = await t.ctx.db
    .selectFrom('transactions')
    .select('urlnotify')
    .where('id', '=', saleId)
    .executeTakeFirstOrThrow();
  const id = await t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId: account.id,
      url: urlnotify!,
      eventType: 'transaction.result',
      payload: { id: saleId },
      at: t.clock.now(),
    }),
  );
  await deliverDueNotifications(t.ctx, { accountId: account.id });
  const res = await t.call(account, { method: 'GET', url: `/api/notifications/${id}` });
  expect(res.statusCode).toBe(200);
  return { id, res };
}

describe('an origin trusted for every account (decision 151 form)', () => {
  it('still takes every account its callbacks, but none reads more than the status', async () => {
    const created = await createSale(open, other, 'open-1');
    expect(created.statusCode).toBe(200);
    const before = internal.requests.length;
    const { id, res } = await deliveredAndRead(open, other, created.json().id);
    expect(internal.requests.length).toBe(before + 1);
    expect(res.body).not.toContain('hunter2');
    expect(res.json().notification).toMatchObject({ status: 'delivered' });
    expect(res.json().notification.attempts_log).toEqual([
      expect.objectContaining({ status_code: 200, error: null, response_excerpt: null }),
    ]);
    // Nothing of it in the database either, so no list, page or command shows it.
    const stored = await open.ctx.db
      .selectFrom('notification_attempts')
      .select('response_excerpt')
      .where('notification_id', '=', id)
      .execute();
    expect(stored).toEqual([{ response_excerpt: null }]);
  });
});

describe('an origin trusted for the accounts it names', () => {
  beforeAll(async () => {
    // The same deployment with the origin trusted for the owner alone.
    scoped = await startTestApp({
      sharing: open,
      env: { ...env, CALLBACK_TRUSTED_ORIGINS: `${internal.url}@${owner.id}` },
    });
  });

  it('refuses another account at creation', async () => {
    const res = await createSale(scoped, other, 'scoped-other');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errors: { urlnotify: 'invalid' } });
  });

  it("refuses another account's callback at delivery, without reaching the receiver", async () => {
    // Written under the open configuration, delivered under the scoped one: the rules in force at the attempt.
    const created = await createSale(open, other, 'scoped-other-written-before');
    expect(created.statusCode).toBe(200);
    const before = internal.requests.length;
    const { res } = await deliveredAndRead(scoped, other, created.json().id);
    expect(internal.requests.length).toBe(before);
    expect(res.body).not.toContain('hunter2');
    expect(res.json().notification.attempts_log).toEqual([
      expect.objectContaining({
        status_code: null,
        error: expect.stringMatching(/^refused: http URLs are not allowed in production mode/),
        response_excerpt: null,
      }),
    ]);
  });

  it('takes the account it names there, with the excerpt of the answer', async () => {
    const created = await createSale(scoped, owner, 'scoped-owner');
    expect(created.statusCode).toBe(200);
    const { res } = await deliveredAndRead(scoped, owner, created.json().id);
    expect(res.json().notification.attempts_log).toEqual([
      expect.objectContaining({ status_code: 200, response_excerpt: secret }),
    ]);
  });
});
