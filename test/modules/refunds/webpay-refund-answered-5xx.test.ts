// Decision 1210 (left, not mended there): a Webpay refund Transbank answers with a 5xx. A 5xx is an answer that
// refused nothing: the refund may have been applied (a gateway in front of Transbank failing after it). Webpay's
// refund (src/platform/processors/webpay-refund.ts) reads `status code [45]\d\d` as a decline, while Oneclick's
// refund and charge read only a 4xx so and ask again otherwise. Known defect: this test fails while it is there
// (`it.fails`), and is to become `it` with its mend. The real `transbank-sdk` against the simulator.
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
  it.fails('is not recorded refused: asked again, it is given back as Transbank gave it', async () => {
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
