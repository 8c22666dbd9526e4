// `cobro refunds record-external` for a bank-transfer sale paid through Fintoc (decision 1080): a refund the merchant
// made in Fintoc's dashboard, recorded by the operator through the real command path. The same money as a refund of a
// twin sale through POST /api/nullification (which goes to Fintoc), nothing sent to Fintoc, then or by the due work,
// Fintoc's own event for that refund not taken for one of Cobro's, `cobro fintoc reconcile` with nothing to report;
// and a refund the wallet cannot cover waiting for funds, then ended by the collection without reaching Fintoc.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import {
  fintocPayoutSucceeded,
  fintocWebhook,
  paidFintocSale,
  startFintocShop,
} from '../support/fintoc-shop.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { drainDueWork } from '../../src/platform/work/due-work.ts';
import { balanceOf, nullify, system } from '../modules/refunds/helpers.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;
const dayMs = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Transferencia', 'e7', {
    payouts: { fundMinor: 1 },
    refundCallbackUrl: 'http://127.0.0.1:9/refunds',
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const run = (...argv: string[]) => dispatch(argv, t.ctx);
const record = (...argv: string[]) => run('refunds', 'record-external', ...argv);
const refundOf = (saleId: string) =>
  t.ctx.db
    .selectFrom('nullifications')
    .selectAll()
    .where('transaction_id', '=', saleId)
    .executeTakeFirstOrThrow();
const statusOf = async (saleId: string) =>
  (
    await t.ctx.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', saleId)
      .executeTakeFirstOrThrow()
  ).status;
const money = async () => ({
  wallet: await balanceOf(t, shop.id, 'wallet_available'),
  pending: await balanceOf(t, shop.id, 'pending_settlement'),
  clearing: await balanceOf(t, system, 'refund_clearing'),
  feeRefunds: await balanceOf(t, system, 'fee_refunds'),
});
const callbacksOf = async (refundId: string) =>
  (
    JSON.parse((await run('refunds', 'show', refundId, '--json')).stdout).callbacks as {
      refund_status: string;
    }[]
  ).map((c) => c.refund_status);

/**
 * `cobro fintoc reconcile`'s findings about refunds, and about `saleId` and its movement when given, as kinds and
 * subjects (once the clock moved a month, the simulator still lists the movements of sales older than the run's
 * lookback, which Fintoc would not: those are not this test's).
 */
async function findings(saleId: string | null) {
  const out = await run('fintoc', 'reconcile', '--account', shop.id, '--json');
  expect(out.stderr).toBe('');
  const sale = await t.ctx.db
    .selectFrom('transactions')
    .select(['id', 'authorization_code'])
    .where('id', '=', saleId ?? '')
    .executeTakeFirst();
  return (JSON.parse(out.stdout).findings as { kind: string; subject: string }[])
    .filter(
      (f) =>
        f.kind === 'unresolved_refund' ||
        (sale !== undefined && [sale.id, `mov_${sale.authorization_code}`].includes(f.subject)),
    )
    .map((f) => `${f.kind} ${f.subject}`);
}

async function ledgerClean() {
  const verify = await run('ledger', 'verify');
  expect(verify.exitCode, verify.stderr + verify.stdout).toBe(0);
}

describe('cobro refunds record-external for a sale paid through Fintoc', () => {
  it('records a refund made in Fintoc dashboard as a refund through Cobro moves the money, nothing sent to Fintoc', async () => {
    const viaApi = await paidFintocSale(t, sim, shop, 'fx-api-1', 20_000);
    const outside = await paidFintocSale(t, sim, shop, 'fx-out-1', 20_000);
    // Their settlement first, so the balances below move by the refunds only.
    await drainDueWork(t.ctx);
    const before = await money();
    expect((await nullify(t, shop, { id: viaApi, amount: 7_000 })).statusCode).toBe(200);
    await drainDueWork(t.ctx);
    expect((await refundOf(viaApi)).status).toBe('reverse_completed');
    const afterApi = await money();
    const sentToFintoc = sim.refunds.size;
    expect(sentToFintoc).toBe(1);

    const out = await record(outside, '--amount', '7000', '--reference', 'Fintoc dashboard ref_d1');
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toContain('reverse_completed, nothing sent to the processor');
    await drainDueWork(t.ctx);
    expect(sim.refunds.size).toBe(sentToFintoc);
    const afterOutside = await money();
    for (const key of ['wallet', 'pending', 'clearing', 'feeRefunds'] as const)
      expect(afterOutside[key] - afterApi[key], key).toBe(afterApi[key] - before[key]);
    const rec = await refundOf(outside);
    expect(rec).toMatchObject({
      status: 'reverse_completed',
      channel: 'processor',
      refund_code: 'external:Fintoc dashboard ref_d1',
      dispatch_attempts: 0,
      dispatch_due_at: null,
    });
    expect(await statusOf(outside)).toBe('refunded partial');
    expect(await callbacksOf(rec.id)).toEqual(['complete', 'reverse_completed']);

    // Fintoc's own event for the dashboard's refund names none of Cobro's: nothing changes.
    expect(
      await fintocWebhook(t, sim, shop, 'refund.succeeded', {
        id: 'ref_dashboard_1',
        object: 'refund',
        status: 'succeeded',
        amount: 7000,
        currency: 'CLP',
        metadata: {},
      }),
    ).toBe('not_ours');
    expect(await money()).toEqual(afterOutside);
    // The sale's movement matches; neither refund is the operator's to look at.
    expect(await findings(outside)).toEqual([]);
    // The rest refunded through Cobro goes to Fintoc: what was given back outside counts.
    expect((await nullify(t, shop, { id: outside, amount: 13_001 })).json().type).toBe(
      'refund_exceeds_paid',
    );
    expect((await nullify(t, shop, { id: outside, amount: 13_000 })).statusCode).toBe(200);
    await drainDueWork(t.ctx);
    expect(sim.refunds.size).toBe(sentToFintoc + 1);
    expect(await statusOf(outside)).toBe('refunded');
    await ledgerClean();
  });

  it('a refund the wallet cannot cover waits for funds, then ends when collected, never sent to Fintoc', async () => {
    const sale = await paidFintocSale(t, sim, shop, 'fx-out-2', 10_000);
    t.clock.advanceMs(30 * dayMs);
    await drainDueWork(t.ctx);
    const wallet = await balanceOf(t, shop.id, 'wallet_available');
    const emptied = (await payout(t, shop, { amount: Number(wallet), order: 'fx-empty-2' })).json();
    expect(emptied.status).toBe('success');
    await drainDueWork(t.ctx);
    await fintocPayoutSucceeded(t, sim, shop, emptied.identifier_payout);
    expect(await balanceOf(t, shop.id, 'wallet_available')).toBe(0n);
    const sentToFintoc = sim.refunds.size;

    const out = await record(sale, '--amount', '4000', '--reference', 'Fintoc dashboard ref_d2');
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toContain('awaiting_funds');
    await drainDueWork(t.ctx);
    expect((await refundOf(sale)).status).toBe('awaiting_funds');
    expect(await findings(null)).toEqual([]);

    // Another Fintoc sale settles: the wallet pays the refund, which ends without a dispatch.
    await paidFintocSale(t, sim, shop, 'fx-out-2b', 20_000);
    t.clock.advanceMs(30 * dayMs);
    await drainDueWork(t.ctx);
    const rec = await refundOf(sale);
    expect(rec).toMatchObject({
      status: 'reverse_completed',
      refund_code: 'external:Fintoc dashboard ref_d2',
      dispatch_attempts: 0,
      dispatch_due_at: null,
    });
    expect(sim.refunds.size).toBe(sentToFintoc);
    expect(await callbacksOf(rec.id)).toEqual(['awaiting_funds', 'complete', 'reverse_completed']);
    expect(await statusOf(sale)).toBe('refunded partial');
    expect(await findings(null)).toEqual([]);
    await ledgerClean();
  });
});
