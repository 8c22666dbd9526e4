// Decision 1045 (finding on decision 1025): a refund recorded with `cobro refunds record-external` while the wallet
// cannot cover it waits for funds (`awaiting_funds`), yet Transbank already gave that money back. A later refund
// through Cobro taken meanwhile (the wallet credited before the collection ran) whose answer is lost is retried
// against Transbank's balance (decision 141): the retry must count the portal's refund, or it reads a balance it
// does not expect and waits undecided until it is left unresolved (decision 1026). The real `transbank-sdk` against
// the simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { paidAtWebpay, webpayShop } from '../support/webpay-shop.ts';
import { balanceOf, nullify } from '../modules/refunds/helpers.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { refundLimits } from '../../src/limits/index.ts';
import { dayMs } from '../../src/limits/units.ts';
import { runRefundDispatch } from '../../src/modules/refunds/dispatch.ts';
import { runSettlements } from '../../src/modules/transactions/settlement.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
const cobro = (...argv: string[]) => runOnContext(argv, t.ctx);

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1045');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paid = (amount: number) => paidAtWebpay(t, shop, sim.url, amount);

describe('a portal refund recorded while waiting for funds, then a refund through Cobro whose answer is lost', () => {
  it('the retry counts the portal refund and reconciles with Transbank balance', async () => {
    const sale = await paid(9000);
    t.clock.advanceMs(60 * dayMs);
    await runSettlements(t.ctx, { limit: 100 });
    const wallet = await balanceOf(t, shop.id, 'wallet_available');
    expect(wallet).toBeGreaterThan(0n);
    const out = await payout(t, shop, { amount: Number(wallet), order: 'empty-1045' });
    expect(out.statusCode, out.body).toBe(200);
    expect(await balanceOf(t, shop.id, 'wallet_available')).toBe(0n);

    // The merchant gave 2000 back at Transbank's portal; the operator records it: nothing to collect it from yet.
    const charge = sim.transactions.get(sale.token)!;
    charge.refunds.push(2000);
    charge.balance -= 2000;
    charge.state = 'PARTIALLY_NULLIFIED';
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
    expect(recorded.stdout).toContain('awaiting_funds');

    // Money reaches the wallet before the collection runs; a refund through Cobro takes it and its answer is lost.
    const credit = await cobro(
      'wallet',
      'credit',
      '--account',
      shop.id,
      '--amount',
      '5000',
      '--currency',
      'CLP',
      '--reason',
      'ajuste',
      '--key',
      'T-ajuste',
    );
    expect(credit.code, credit.stderr).toBe(0);
    sim.refundFault = 'reset';
    const res = await nullify(t, shop, { id: sale.id, amount: 3000, subject: 'anulación' });
    sim.refundFault = 'none';
    expect(res.json().nullify.status_nullify, res.body).toBe('complete');
    expect(sim.transactions.get(sale.token)).toMatchObject({
      refunds: [2000, 3000],
      balance: 4000,
    });

    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1_000);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(1);
    const rows = await t.ctx.db
      .selectFrom('nullifications')
      .select(['amount_minor', 'status'])
      .where('transaction_id', '=', sale.id)
      .orderBy('seq')
      .execute();
    expect(rows).toEqual([
      { amount_minor: 2000n, status: 'awaiting_funds' },
      { amount_minor: 3000n, status: 'reverse_completed' },
    ]);
    // Transbank was asked once for the 3000 (the lost answer) and never again.
    expect(sim.transactions.get(sale.token)).toMatchObject({
      refunds: [2000, 3000],
      balance: 4000,
    });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
