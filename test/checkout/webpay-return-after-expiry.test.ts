// Decision 655, the Webpay return: a payer back after the hold ran out and the sale's expiry passed finds it expired
// and nothing committed, whether or not the expiry due work ran (before, Transbank's payment was committed and the
// expired sale recorded paid); and a record that fails after Transbank charged shows the payment as being processed
// (the recovery records it), never "No se realizó ningún cobro".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { payerAtWebpay, webpayShop } from '../support/webpay-shop.ts';
import { createTransaction, linkParams, pathOf } from '../modules/transactions/helpers.ts';
import { transactionLimits } from '../../src/limits/index.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the Webpay return after expiry, and after a failed record', () => {
  it('does not commit a sale whose expiry passed once the hold ran out, even before the expiry due work', async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      expired: '2026-03-10 12:06:00',
      urlreturn: 'https://shop.example/back',
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/cobro',
      headers: form,
      payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
    });
    const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)![1]!;
    await fetch(`${sim.url}/webpayserver/initTransaction`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ token_ws: token }),
    });
    // The hold (10 min) and the sale's expiry (12:06) both pass before the browser is back.
    t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + 60_000);
    const back = await fetch(`${sim.url}/webpayserver/pay`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ token, card: '4051885600446623', installments: '0' }),
      redirect: 'manual',
    });
    const page = await t.app.inject({ method: 'GET', url: pathOf(back.headers.get('location')!) });
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select(['status', 'rejection_reason'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect({
      commits: sim.transactions.get(token)!.commits,
      row,
      paid: page.body.includes('Pago exitoso'),
    }).toEqual({
      commits: 0,
      row: { status: 'rejected', rejection_reason: 'expired' },
      paid: false,
    });
  });

  it('a record that fails after Transbank charged does not tell the payer that nothing was charged', async () => {
    const created = await createTransaction(t, shop, { payment: 1, order: 'rec-fail' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/cobro',
      headers: form,
      payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
    });
    const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)![1]!;
    const back = await payerAtWebpay(sim.url, token);
    // Cobro's write of the outcome fails once Transbank has charged (here: the attempt's INSERT is refused).
    await sql`CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'record refused'; END $$`.execute(t.ctx.db);
    await sql`CREATE TRIGGER test_refuse BEFORE INSERT ON payment_attempts
      FOR EACH ROW EXECUTE FUNCTION test_refuse()`.execute(t.ctx.db);
    let page;
    try {
      page = await t.app.inject({ method: 'GET', url: pathOf(back.headers.get('location')!) });
    } finally {
      await sql`DROP TRIGGER test_refuse ON payment_attempts`.execute(t.ctx.db);
      await sql`DROP FUNCTION test_refuse()`.execute(t.ctx.db);
    }
    expect(sim.transactions.get(token)!.commits).toBe(1);
    expect(sim.transactions.get(token)!.state).toBe('AUTHORIZED');
    // The card was charged: the page may say the payment is being processed, never that nothing was charged.
    expect(page.body).not.toContain('No se realizó ningún cobro');
  });
});
