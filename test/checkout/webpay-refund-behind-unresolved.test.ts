// Decision 1011: a later refund of a Webpay Plus sale whose earlier refund was left unresolved (Transbank answered it
// for another amount, decision 996). Cobro no longer knows what Transbank holds of the charge, so the later refund
// is refused with a business error naming the earlier one, and `cobro refunds resolve` is the path out. The real
// `transbank-sdk` against the simulator, through `POST /api/nullification` and the CLI.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { paidAtWebpay, webpayShop } from '../support/webpay-shop.ts';
import { nullify } from '../modules/refunds/helpers.ts';
import { runOnContext } from '../support/cli-in-process.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
const cobro = (...argv: string[]) => runOnContext(argv, t.ctx);

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1011');
});
afterEach(() => {
  sim.rewrite.refund = undefined;
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paid = (amount: number) => paidAtWebpay(t, shop, sim.url, amount);

const refund = (id: string, amount: number) =>
  nullify(t, shop, { id, amount, subject: 'anulación' });

/** A refund of `amount` that Transbank applied and answered NULLIFIED for another amount: left unresolved. */
async function unresolvedRefund(saleId: string, amount: number) {
  sim.rewrite.refund = (b) => ({ ...b, nullified_amount: amount + 1 });
  const res = await refund(saleId, amount);
  sim.rewrite.refund = undefined;
  expect(res.statusCode, res.body).toBe(200);
  const row = await t.ctx.db
    .selectFrom('nullifications')
    .select(['id', 'status', 'dispatch_due_at'])
    .where('transaction_id', '=', saleId)
    .executeTakeFirstOrThrow();
  expect(row).toMatchObject({ status: 'complete', dispatch_due_at: null });
  return row.id;
}

describe('a later refund of a sale whose earlier refund is unresolved', () => {
  it('is refused with a business error naming the earlier refund and the way out; nothing moves', async () => {
    const sale = await paid(9000);
    const first = await unresolvedRefund(sale.id, 2000);
    const balanceBefore = sim.transactions.get(sale.token)!.balance;
    const res = await refund(sale.id, 3000);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'earlier_refund_unresolved',
      message_error: `transaction ${sale.id} has refund ${first} awaiting a check at the processor (unresolved); no other refund of it is sent until an operator resolves it`,
    });
    const rows = await t.ctx.db
      .selectFrom('nullifications')
      .select('id')
      .where('transaction_id', '=', sale.id)
      .execute();
    expect(rows.map((r) => r.id)).toEqual([first]);
    expect(sim.transactions.get(sale.token)!.balance).toBe(balanceBefore);
  });

  it('is taken and sent once the operator resolved the earlier one (cobro refunds resolve)', async () => {
    const sale = await paid(9100);
    const first = await unresolvedRefund(sale.id, 2000);
    expect((await refund(sale.id, 3000)).json().type).toBe('earlier_refund_unresolved');
    const run = await cobro('refunds', 'resolve', first, '--outcome', 'succeeded');
    expect(run.code, run.stderr).toBe(0);
    const res = await refund(sale.id, 3000);
    expect(res.json().nullify.status_nullify, res.body).toBe('reverse_completed');
    // Transbank gave back both: 2000 (the first, as the operator found it) and 3000.
    expect(sim.transactions.get(sale.token)!.balance).toBe(9100 - 2000 - 3000);
  });

  it('a refund of another sale is not held by it (holds)', async () => {
    const held = await paid(9200);
    await unresolvedRefund(held.id, 1000);
    const other = await paid(9300);
    expect((await refund(other.id, 1000)).json().nullify.status_nullify).toBe('reverse_completed');
  });
});
