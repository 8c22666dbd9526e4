// Each state change of a refund is called back to the account's nullification URL (reference §3.3, decision 111):
// set with `cobro accounts set-urls`, written to the outbox with the change, delivered signed to a local receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { webhookSignature } from '../../../src/platform/notifications/sign.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { payout } from '../wallet/wallet-helpers.ts';
import { nullify, paidSale, settle } from './helpers.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  [t, receiver] = await Promise.all([startTestApp(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([t.close(), receiver.close()]);
});

const cli = (...args: string[]) => dispatch(args, t.ctx);
const order = [
  'pending',
  'awaiting_funds',
  'complete',
  'waiting_bank_details',
  'reverse_completed',
  'reverse_deleted',
];
const fecha = /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/;

/** Delivers the account's due callbacks and answers the bodies that reached `path`, each verified with its secret. */
async function received(account: TestAccount, path: string): Promise<Record<string, unknown>[]> {
  await deliverDueNotifications(t.ctx, { accountId: account.id });
  return receiver.requests
    .filter((r) => r.path === path)
    .map((r) => {
      // Signed at the test app's manual clock, so checked against the signature rather than a library's time window.
      const signed = webhookSignature(
        account.webhookSecret,
        String(r.headers['webhook-id']),
        Number(r.headers['webhook-timestamp']),
        r.body,
      );
      expect(r.headers['webhook-signature']).toBe(signed);
      return JSON.parse(r.body) as Record<string, unknown>;
      // Callbacks are delivered concurrently, so they may arrive in any order: listed here in the order of their states.
    })
    .sort((x, y) => order.indexOf(String(x.status)) - order.indexOf(String(y.status)));
}

async function merchantWithUrl(path: string): Promise<TestAccount> {
  const a = await t.createAccount();
  const set = await cli(
    'accounts',
    'set-urls',
    a.id,
    '--nullification-url',
    `${receiver.url}${path}`,
    '--json',
  );
  expect(set.exitCode).toBe(0);
  expect(JSON.parse(set.stdout)).toEqual({
    id: a.id,
    notify_url: null,
    nullification_url: `${receiver.url}${path}`,
  });
  return a;
}

describe('nullification callbacks', () => {
  it("call back pending -> complete and complete -> reverse_completed of a card refund, signed, in the reference's Spanish payload", async () => {
    const a = await merchantWithUrl('/refunds/a');
    const id = await paidSale(t, a, 10_000, 'orden-77');
    expect((await nullify(t, a, { id, amount: 4_000 })).json().nullify.status_nullify).toBe(
      'reverse_completed',
    );
    const refund = await t.ctx.db
      .selectFrom('nullifications')
      .select('id')
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    const bodies = await received(a, '/refunds/a');
    expect(bodies.map((b) => b.status)).toEqual(['complete', 'reverse_completed']);
    for (const body of bodies) {
      expect(Object.keys(body)).toEqual([
        'id',
        'id_transaction',
        'ordencompra',
        'fecha',
        'monto',
        'status',
        'id_nullification',
      ]);
      expect(body).toMatchObject({
        id,
        id_transaction: id,
        ordencompra: 'orden-77',
        monto: 4_000,
        id_nullification: refund.id,
      });
      // The reference SDK's verifyCallback rule.
      expect(body.id).toBe(body.id_transaction);
      expect(body.fecha).toMatch(fecha);
    }
    const rows = await t.ctx.db
      .selectFrom('notifications')
      .select(['event_type', 'status'])
      .where('account_id', '=', a.id)
      .where('event_type', '=', 'nullification.result')
      .execute();
    expect(rows).toEqual([
      { event_type: 'nullification.result', status: 'delivered' },
      { event_type: 'nullification.result', status: 'delivered' },
    ]);
  });

  it('call back awaiting_funds, then awaiting_funds -> complete when the next settlement pays it, then reverse_completed', async () => {
    const a = await merchantWithUrl('/refunds/b');
    const id = await paidSale(t, a, 10_000);
    await settle(t, a);
    expect((await payout(t, a, { amount: 9_000, order: 'drain' })).json().status).toBe('success');
    expect((await nullify(t, a, { id, amount: 5_000 })).json().nullify.status_nullify).toBe(
      'awaiting_funds',
    );
    expect((await received(a, '/refunds/b')).map((b) => b.status)).toEqual(['awaiting_funds']);
    await paidSale(t, a, 8_000, 'next-sale');
    await settle(t, a);
    const bodies = await received(a, '/refunds/b');
    expect(bodies.map((b) => [b.status, b.monto, b.id_transaction])).toEqual([
      ['awaiting_funds', 5_000, id],
      ['complete', 5_000, id],
      ['reverse_completed', 5_000, id],
    ]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('sends nothing for an account without a nullification URL, and stops once it is cleared', async () => {
    const a = await merchantWithUrl('/refunds/c');
    expect(
      JSON.parse(
        (await cli('accounts', 'set-urls', a.id, '--clear-nullification-url', '--json')).stdout,
      ),
    ).toEqual({ id: a.id, notify_url: null, nullification_url: null });
    const id = await paidSale(t, a, 3_000);
    expect((await nullify(t, a, { id, amount: 3_000 })).json().status).toBe('success');
    expect(
      await t.ctx.db
        .selectFrom('notifications')
        .select('id')
        .where('account_id', '=', a.id)
        .where('event_type', '=', 'nullification.result')
        .execute(),
    ).toEqual([]);
  });
});

describe('cobro accounts set-urls', () => {
  it('sets and clears each URL on its own, and set-notify-url is the same setting', async () => {
    const a = await t.createAccount();
    await cli(
      'accounts',
      'set-urls',
      a.id,
      '--notify-url',
      'https://shop.example.com/events',
      '--nullification-url',
      'https://shop.example.com/refunds',
    );
    expect(
      JSON.parse((await cli('accounts', 'set-notify-url', a.id, '--clear', '--json')).stdout),
    ).toEqual({ id: a.id, notify_url: null });
    const shown = await cli('accounts', 'set-urls', a.id);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toBe(
      `${a.id}: account callbacks (destination.changed) go to nowhere\n${a.id}: nullification callbacks (nullification.result) go to https://shop.example.com/refunds\n`,
    );
  });

  it('refuses a URL a callback could never be delivered to, and bad usage, changing nothing', async () => {
    const a = await t.createAccount();
    await cli(
      'accounts',
      'set-urls',
      a.id,
      '--nullification-url',
      'https://shop.example.com/refunds',
    );
    for (const url of [
      'ftp://shop.example.com/x',
      'https://user:pw@shop.example.com/x',
      'http://169.254.169.254/latest',
      'not a url',
      `https://x.example/${'a'.repeat(600)}`,
    ]) {
      const out = await cli('accounts', 'set-urls', a.id, '--nullification-url', url);
      expect(out.exitCode, url).toBe(2);
      expect(out.stderr, url).toMatch(/^--nullification-url: /);
    }
    expect(
      (
        await cli(
          'accounts',
          'set-urls',
          a.id,
          '--notify-url',
          'https://ok.example/x',
          '--clear-notify-url',
        )
      ).exitCode,
    ).toBe(2);
    expect(
      (await cli('accounts', 'set-urls', 'acc_none', '--nullification-url', 'https://ok.example/x'))
        .stderr,
    ).toBe('no account with id acc_none\n');
    const row = await t.ctx.db
      .selectFrom('accounts')
      .select(['notify_url', 'nullification_url'])
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      notify_url: null,
      nullification_url: 'https://shop.example.com/refunds',
    });
  });
});
