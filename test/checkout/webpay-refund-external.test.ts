// Decision 1025 with Webpay Plus: a sale partly refunded at Transbank's portal (PARTIALLY_NULLIFIED, decision 1010),
// recorded with `cobro refunds record-external`. The real `transbank-sdk` against the simulator. Recorded, the
// portal's refund counts where Transbank's balance is read: a later refund through Cobro whose answer is lost is
// reconciled from the charge's status (decision 141) instead of waiting undecided.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { paidAtWebpay, webpayShop } from '../support/webpay-shop.ts';
import { nullify } from '../modules/refunds/helpers.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { refundLimits } from '../../src/limits/index.ts';
import { runRefundDispatch } from '../../src/modules/refunds/dispatch.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
const cobro = (...argv: string[]) => runOnContext(argv, t.ctx);

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1025');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paid = (amount: number) => paidAtWebpay(t, shop, sim.url, amount);

/** The merchant refunds `amount` at Transbank's portal: Transbank's record changes, Cobro is told nothing. */
function refundAtPortal(token: string, amount: number) {
  const charge = sim.transactions.get(token)!;
  charge.refunds.push(amount);
  charge.balance -= amount;
  charge.state = 'PARTIALLY_NULLIFIED';
}

describe('a Webpay sale partly refunded at the portal, recorded with cobro refunds record-external', () => {
  it('is sent nothing, and a later refund whose answer is lost reconciles with the balance', async () => {
    const sale = await paid(9000);
    refundAtPortal(sale.token, 2000);
    const calls = sim.calls.length;
    const recorded = await cobro(
      'refunds',
      'record-external',
      sale.id,
      '--amount',
      '2000',
      '--reference',
      'portal 2000',
    );
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(sim.calls.length).toBe(calls);

    sim.refundFault = 'reset';
    const res = await nullify(t, shop, { id: sale.id, amount: 3000, subject: 'anulación' });
    sim.refundFault = 'none';
    expect(res.json().nullify.status_nullify, res.body).toBe('complete');
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1_000);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(1);
    const rows = await t.ctx.db
      .selectFrom('nullifications')
      .select(['amount_minor', 'status'])
      .where('transaction_id', '=', sale.id)
      .orderBy('seq')
      .execute();
    expect(rows).toEqual([
      { amount_minor: 2000n, status: 'reverse_completed' },
      { amount_minor: 3000n, status: 'reverse_completed' },
    ]);
    expect(sim.transactions.get(sale.token)).toMatchObject({
      refunds: [2000, 3000],
      balance: 4000,
    });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
