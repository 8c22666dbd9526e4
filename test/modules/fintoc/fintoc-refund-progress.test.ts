// Decision 745: a Fintoc refund is done only when Fintoc says `succeeded`. Answered `created` or `in_progress`, it
// stays `complete` (its money in refund clearing) and ends by Fintoc's refund.* webhook or by the refund-dispatch due
// work reading the refund at Fintoc; failed or canceled, its money goes back to the merchant and the merchant is
// called back; asked about for too long, the due work stops asking.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import {
  startFintocShop,
  fintocWebhook,
  paidFintocSale,
  refundRowOf,
} from '../../support/fintoc-shop.ts';
import { refundLimits } from '../../../src/limits/index.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Devoluciones', 'ab', {
    refundCallbackUrl: 'https://shop.example.com/refunds',
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paidSale = (order: string, amount: number) => paidFintocSale(t, sim, shop, order, amount);
const refundRow = (saleId: string) => refundRowOf(t, saleId);
const webhook = (type: string, data: Record<string, unknown>) =>
  fintocWebhook(t, sim, shop, type, data);

/** Refunds `amount` of the sale while Fintoc answers refunds `in_progress`; the refund and Fintoc's refund. */
async function refundInProgress(id: string, amount: number) {
  sim.refundStatus = 'in_progress';
  const res = await t.call(shop, {
    method: 'POST',
    url: '/api/nullification',
    sign: true,
    body: { id, amount, subject: 'devolución' },
  });
  sim.refundStatus = 'succeeded';
  expect(res.statusCode, res.body).toBe(200);
  const row = await refundRow(id);
  expect(row.status).toBe('complete');
  const fintocRefund = sim.refunds.get(row.refund_code!)!;
  expect(fintocRefund.metadata).toEqual({ cobro_nullification_id: row.id });
  return { row, fintocRefund };
}

async function saleRefunded(id: string) {
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'refunded_minor'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { status: row.status, refundedMinor: Number(row.refunded_minor) };
}

async function calledBack(nullificationId: string): Promise<string[]> {
  const rows = await t.ctx.db
    .selectFrom('notifications')
    .select('payload')
    .where('account_id', '=', shop.id)
    .where('event_type', '=', 'nullification.result')
    .orderBy('created_at')
    .execute();
  return rows
    .map((r) => r.payload as Record<string, unknown>)
    .filter((p) => p.id_nullification === nullificationId)
    .map((p) => String(p.status));
}

describe('a Fintoc refund answered in progress', () => {
  it('fails by webhook: reverse_deleted, its money back to the sale, the merchant called back', async () => {
    const id = await paidSale('rp-1', 9000);
    const { row, fintocRefund } = await refundInProgress(id, 4000);
    expect(await saleRefunded(id)).toEqual({ status: 'refunded partial', refundedMinor: 4000 });
    expect(await calledBack(row.id)).toEqual(['complete']);
    const failed = { ...fintocRefund, status: 'failed', failure_code: 'insufficient_funds' };
    expect(await webhook('refund.failed', failed)).toBe('reverse_deleted');
    const after = await refundRow(id);
    expect(after.status).toBe('reverse_deleted');
    expect(after.gateway_message).toBe('Fintoc refund failed (insufficient_funds)');
    expect(await saleRefunded(id)).toEqual({ status: 'success', refundedMinor: 0 });
    expect(await calledBack(row.id)).toEqual(['complete', 'reverse_deleted']);
    // The same event again, or a late in_progress, changes nothing.
    expect(await webhook('refund.failed', failed)).toBe('final');
    expect(await webhook('refund.in_progress', { ...fintocRefund })).toBe('final');
  });

  it('succeeds by webhook, named by its Fintoc id alone: reverse_completed', async () => {
    const id = await paidSale('rp-2', 7000);
    const { row, fintocRefund } = await refundInProgress(id, 7000);
    const { metadata: _ignored, ...withoutMetadata } = fintocRefund;
    expect(await webhook('refund.succeeded', { ...withoutMetadata, status: 'succeeded' })).toBe(
      'reverse_completed',
    );
    expect((await refundRow(id)).status).toBe('reverse_completed');
    expect(await calledBack(row.id)).toEqual(['complete', 'reverse_completed']);
  });

  it('is read at Fintoc by the due work, never created again, until Fintoc says succeeded', async () => {
    const id = await paidSale('rp-3', 5000);
    const { row, fintocRefund } = await refundInProgress(id, 5000);
    const creates = () => sim.calls.filter((c) => c === 'POST /v1/refunds').length;
    const createdBefore = creates();
    t.clock.advanceMs(refundLimits.inProgressRecheckMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    expect(sim.calls).toContain(`GET /v1/refunds/${String(fintocRefund.id)}`);
    expect((await refundRow(id)).status).toBe('complete');
    fintocRefund.status = 'succeeded';
    t.clock.advanceMs(refundLimits.inProgressRecheckMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    const after = await refundRow(id);
    expect(after.status).toBe('reverse_completed');
    expect(after.refund_code).toBe(fintocRefund.id);
    expect(creates()).toBe(createdBefore);
    expect(await calledBack(row.id)).toEqual(['complete', 'reverse_completed']);
  });

  it('stops being asked about at refundLimits.inProgressAskMsMax, still complete', async () => {
    const id = await paidSale('rp-4', 3000);
    await refundInProgress(id, 3000);
    t.clock.advanceMs(refundLimits.inProgressAskMsMax + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    const after = await refundRow(id);
    expect(after.status).toBe('complete');
    expect(after.dispatch_due_at).toBeNull();
    // Fintoc's webhook still ends it.
    expect(
      await webhook('refund.succeeded', {
        ...sim.refunds.get(after.refund_code!)!,
        status: 'succeeded',
      }),
    ).toBe('reverse_completed');
  });
});

describe('a Fintoc refund Fintoc reports succeeded for another amount (decision 989)', () => {
  it('by webhook: not recorded as the one asked, left unresolved for the operator', async () => {
    const id = await paidSale('rp-amount-1', 9000);
    const { row, fintocRefund } = await refundInProgress(id, 4000);
    const other = { ...fintocRefund, status: 'succeeded', amount: 9000 };
    expect(await webhook('refund.succeeded', other)).not.toBe('reverse_completed');
    const after = await refundRow(id);
    expect(after.status).toBe('complete');
    expect(after.dispatch_due_at).toBeNull();
    expect(await calledBack(row.id)).toEqual(['complete']);
  });

  it('read by the due work: the same, never recorded as asked', async () => {
    const id = await paidSale('rp-amount-2', 8000);
    const { fintocRefund } = await refundInProgress(id, 3000);
    fintocRefund.status = 'succeeded';
    fintocRefund.amount = '3000.5';
    t.clock.advanceMs(refundLimits.inProgressRecheckMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    const after = await refundRow(id);
    expect(after.status).toBe('complete');
    expect(after.dispatch_due_at).toBeNull();
  });

  it('the amount as a string of the same integer is the refund asked (holds)', async () => {
    const id = await paidSale('rp-amount-3', 6000);
    const { fintocRefund } = await refundInProgress(id, 2500);
    const same = { ...fintocRefund, status: 'succeeded', amount: '2500' };
    expect(await webhook('refund.succeeded', same)).toBe('reverse_completed');
  });
});
