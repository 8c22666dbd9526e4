// Decision 1010: what a Webpay Plus sale becomes when its commit answer was lost and Transbank's status then says
// INITIALIZED (the commit never arrived, or is still running there) or NULLIFIED / PARTIALLY_NULLIFIED / REVERSED
// (the sale was charged and then refunded outside Cobro, e.g. at Transbank's portal). The real `transbank-sdk`
// against the simulator, through the checkout's HTTP routes and the `processor-commit-recovery` due work.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { payerAtWebpay, webpaySaleFacts, webpayShop } from '../support/webpay-shop.ts';
import { createTransaction, linkParams, pathOf } from '../modules/transactions/helpers.ts';
import { recoverLostCommits } from '../../src/modules/transactions/redirect-recovery.ts';
import { transactionLimits } from '../../src/limits/index.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1010');
});
afterEach(() => {
  sim.rewrite.status = undefined;
  sim.commitFault = 'none';
  sim.statusFault = 'none';
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

async function facts(id: string) {
  const sessions = await t.ctx.db
    .selectFrom('processor_sessions')
    .select('state')
    .where('transaction_id', '=', id)
    .execute();
  return { ...(await webpaySaleFacts(t, id)), sessions: sessions.map((s) => s.state) };
}

async function payAtWebpay(url: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(url), method: '1' }).toString(),
  });
  const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)?.[1];
  expect(token, res.body).toBeDefined();
  const back = await payerAtWebpay(sim.url, token!);
  return {
    token: token!,
    back: await t.app.inject({ method: 'GET', url: pathOf(back.headers.get('location')!) }),
  };
}

async function recheck() {
  t.clock.advanceMs(transactionLimits.acquirer.commitRecheckMs + 1_000);
  return recoverLostCommits(t.ctx, { limit: 10 });
}

describe('a status read INITIALIZED after a lost commit', () => {
  it('a commit still running at Transbank when the status is read is paid, not declined', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 12000 });
    sim.commitFault = 'reset';
    // Transbank had not finished the commit when Cobro read the status: it still said INITIALIZED.
    sim.rewrite.status = (b) => ({ ...b, status: 'INITIALIZED', response_code: null });
    const { token, back } = await payAtWebpay(created.url);
    expect(sim.transactions.get(token)!.state).toBe('AUTHORIZED');
    expect(back.body).not.toContain('no se realizó ningún cobro');
    expect(back.body).toContain('Estamos procesando tu pago');
    expect(await facts(created.id)).toMatchObject({ status: 'pending', sessions: ['committing'] });
    sim.rewrite.status = undefined;
    expect(await recheck()).toBe(1);
    expect(await facts(created.id)).toMatchObject({
      status: 'success',
      captures: 1,
      sessions: ['approved'],
    });
  });

  it('a commit that never reached Transbank is declined by the recovery, nothing charged', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 12100 });
    sim.commitFault = 'drop';
    const { token, back } = await payAtWebpay(created.url);
    expect(back.body).toContain('Estamos procesando tu pago');
    sim.commitFault = 'none';
    expect(await recheck()).toBe(1);
    expect(sim.transactions.get(token)!.commits).toBe(0);
    expect(await facts(created.id)).toMatchObject({
      status: 'pending',
      captures: 0,
      callbacks: 0,
      sessions: ['declined'],
    });
    // The sale is open for another try, which pays it once.
    const again = await payAtWebpay(created.url);
    expect(again.back.body).toContain('Pago exitoso');
    expect(await facts(created.id)).toMatchObject({ status: 'success', captures: 1 });
  });
});

describe('a status read NULLIFIED, PARTIALLY_NULLIFIED or REVERSED after a lost commit', () => {
  it('PARTIALLY_NULLIFIED (charged, part refunded at Transbank) records the sale paid, less the part refunded', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 10000 });
    sim.commitFault = 'reset';
    sim.rewrite.status = (b) => ({ ...b, status: 'PARTIALLY_NULLIFIED', balance: 7000 });
    const { back } = await payAtWebpay(created.url);
    expect(back.body).toContain('Pago exitoso');
    // The part given back is recorded with it (decision 1042).
    expect(await facts(created.id)).toMatchObject({
      status: 'refunded partial',
      captures: 1,
      sessions: ['approved'],
    });
  });

  it('PARTIALLY_NULLIFIED read by the recovery records the sale paid', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 10100 });
    sim.commitFault = 'reset';
    sim.statusFault = 'error';
    expect((await payAtWebpay(created.url)).back.body).toContain('Estamos procesando tu pago');
    sim.statusFault = 'none';
    sim.rewrite.status = (b) => ({ ...b, status: 'PARTIALLY_NULLIFIED', balance: 100 });
    expect(await recheck()).toBe(1);
    expect(await facts(created.id)).toMatchObject({ status: 'refunded partial', captures: 1 });
  });

  it('NULLIFIED or REVERSED (the whole charge given back at Transbank) is not paid, and the payer is told why', async () => {
    for (const status of ['NULLIFIED', 'REVERSED'] as const) {
      const created = await createTransaction(t, shop, { payment: 1, amount: 10200 });
      sim.commitFault = 'reset';
      sim.rewrite.status = (b) => ({
        ...b,
        status,
        ...(status === 'NULLIFIED' ? { balance: 0 } : {}),
      });
      const { back } = await payAtWebpay(created.url);
      expect(back.body, status).not.toContain('Pago exitoso');
      expect(back.body, status).toContain('devuelto');
      expect(await facts(created.id), status).toMatchObject({
        status: 'pending',
        captures: 0,
        sessions: ['declined'],
      });
    }
  });

  it('a partly refunded charge of another amount is still not the sale (decision 996 holds)', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 10300 });
    sim.commitFault = 'reset';
    sim.rewrite.status = (b) => ({ ...b, status: 'PARTIALLY_NULLIFIED', amount: 5, balance: 1 });
    const { back } = await payAtWebpay(created.url);
    expect(back.body).not.toContain('Pago exitoso');
    expect(await facts(created.id)).toMatchObject({ status: 'pending', captures: 0 });
  });
});
