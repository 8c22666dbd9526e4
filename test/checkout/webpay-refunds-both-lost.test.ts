// Decision 1026: two refunds of one Webpay Plus charge, both applied at Transbank with both answers lost. Each retry
// reads a balance it does not expect (the other's part is in it), so neither decides; they are asked again each
// lease until refundLimits.lostAnswerAskMsMax after their first dispatch, then left unresolved for the operator,
// logged and listed by `cobro refunds list --unresolved`. The real `transbank-sdk` against the simulator, the due
// work `refund-dispatch` run by hand, the service clock moved by the test.
import { Writable } from 'node:stream';
import pino from 'pino';
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
const logged: string[] = [];
const cobro = (...argv: string[]) => runOnContext(argv, t.ctx);

beforeAll(async () => {
  sim = await startWebpaySimulator();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logged.push(String(chunk));
      done();
    },
  });
  t = await startTestApp({
    env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) },
    logger: pino({ level: 'error' }, stream),
  });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1026');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paid = (amount: number) => paidAtWebpay(t, shop, sim.url, amount);

/** A refund Transbank applied whose answer was lost (the connection reset after it). */
async function appliedAnswerLost(saleId: string, amount: number) {
  sim.refundFault = 'reset';
  const res = await nullify(t, shop, { id: saleId, amount, subject: 'anulación' });
  sim.refundFault = 'none';
  expect(res.json().nullify.status_nullify, res.body).toBe('complete');
}

const rowsOf = (saleId: string) =>
  t.ctx.db
    .selectFrom('nullifications')
    .select(['id', 'status', 'dispatch_due_at'])
    .where('transaction_id', '=', saleId)
    .orderBy('seq')
    .execute();

describe('two refunds of one Webpay charge, both applied with both answers lost', () => {
  it('are asked again until the bound, then left unresolved, logged and listed for the operator', async () => {
    const sale = await paid(9000);
    await appliedAnswerLost(sale.id, 2000);
    await appliedAnswerLost(sale.id, 3000);
    expect(sim.transactions.get(sale.token)!.balance).toBe(4000);

    // Within the bound: each retry reads a balance neither expects and decides nothing; asked again each lease.
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1_000);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(2);
    for (const row of await rowsOf(sale.id)) {
      expect(row.status).toBe('complete');
      expect(row.dispatch_due_at).not.toBeNull();
    }

    // Past the bound on the service clock: left unresolved, not asked again.
    t.clock.advanceMs(refundLimits.lostAnswerAskMsMax);
    const reads = sim.calls.filter((c) => c.token === sale.token).length;
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(2);
    expect(sim.calls.filter((c) => c.token === sale.token).length).toBe(reads);
    const rows = await rowsOf(sale.id);
    expect(rows.map((r) => [r.status, r.dispatch_due_at])).toEqual([
      ['complete', null],
      ['complete', null],
    ]);
    for (const row of rows)
      expect(
        logged.some((l) => l.includes(row.id) && l.includes('refundLimits.lostAnswerAskMsMax')),
      ).toBe(true);

    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1_000);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(0);

    const listed = await cobro('refunds', 'list', '--unresolved', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      JSON.parse(listed.stdout)
        .refunds.map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual(rows.map((r) => r.id).sort());
    // The operator checks Transbank's portal (both applied) and records it.
    for (const row of rows) {
      const run = await cobro('refunds', 'resolve', row.id, '--outcome', 'succeeded');
      expect(run.code, run.stderr).toBe(0);
    }
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
