// Decision 1225: a Webpay refund Transbank answers with a 5xx. A 5xx is an answer that refused nothing: the refund
// may have been applied (a gateway in front of Transbank failing after it). Webpay's refund read `status code [45]\d\d`
// as a decline, recorded the refund refused and gave its money back to the merchant though the payer had it; it is
// now asked again, and the retry finds it in the charge's balance. The real `transbank-sdk` against the simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../../support/webpay-simulator.ts';
import { paidAtWebpay, webpayShop } from '../../support/webpay-shop.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { nullify } from './helpers.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ce'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1210');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const refundOf = (saleId: string) =>
  t.ctx.db
    .selectFrom('nullifications')
    .select(['status', 'dispatch_due_at'])
    .where('transaction_id', '=', saleId)
    .executeTakeFirstOrThrow();

describe('a Webpay refund answered 502 after Transbank applied it', () => {
  it('is not recorded refused: asked again, it is given back as Transbank gave it', async () => {
    const sale = await paidAtWebpay(t, shop, sim.url, 9_000);
    sim.refundFault = 'error';
    try {
      await nullify(t, shop, { id: sale.id, amount: 2_000, subject: 'cinco' });
    } finally {
      sim.refundFault = 'none';
    }
    expect(sim.transactions.get(sale.token)!.refunds).toEqual([2_000]);
    const first = await refundOf(sale.id);
    expect(first.status).not.toBe('reverse_deleted');
    if (first.dispatch_due_at !== null)
      t.clock.advanceMs(first.dispatch_due_at.getTime() - t.clock.now().getTime() + 1_000);
    await runRefundDispatch(t.ctx, { limit: 10 });
    expect((await refundOf(sale.id)).status).toBe('reverse_completed');
  });
});
