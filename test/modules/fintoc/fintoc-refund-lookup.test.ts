// Decision 785: a Fintoc refund whose create answer was lost is looked up at Fintoc before it is sent again. Fintoc
// keeps an idempotency key about 24 hours ("Idempotent requests"); a resend after it has dropped the key is taken as a
// new refund, so the same key alone does not keep a late retry from refunding twice. Fintoc has no lookup by key, but
// its "List refunds" filters by `since` and a refund carries the metadata Cobro sent (`cobro_nullification_id`): a
// retry reads the refunds since the first dispatch and takes the one naming the refund. Only when none shows is it
// sent again, within fintocLimits.refundRetriesMax tries and fintocLimits.refundResendWindowMs of the first; past them
// it is left for Fintoc's webhook and the operator, never sent again; a refused resend is not a refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop, paidFintocSale, refundRowOf } from '../../support/fintoc-shop.ts';
import { fintocLimits, refundLimits } from '../../../src/limits/index.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';

const hourMs = 60 * 60 * 1000;

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Reenvíos', 'ef'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paidSale = (order: string, amount: number) => paidFintocSale(t, sim, shop, order, amount);
const refundRow = (saleId: string) => refundRowOf(t, saleId);

/** Refunds the sale while Fintoc's answer to the create is lost (`fault`); the refund's row. */
async function refundWithLostAnswer(saleId: string, amount: number, fault: 'reset' | 'drop') {
  sim.refundFault = fault;
  const res = await t.call(shop, {
    method: 'POST',
    url: '/api/nullification',
    sign: true,
    body: { id: saleId, amount, subject: 'devolución' },
  });
  sim.refundFault = null;
  expect(res.statusCode, res.body).toBe(200);
  const row = await refundRow(saleId);
  expect([row.status, row.dispatch_attempts, row.refund_code]).toEqual(['complete', 1, null]);
  return row;
}

/** The refunds Fintoc holds for the nullification (by the metadata Cobro sent). */
function atFintoc(nullificationId: string) {
  return [...sim.refunds.values()].filter(
    (r) => (r.metadata as Record<string, unknown>).cobro_nullification_id === nullificationId,
  );
}

function creates(): number {
  return sim.calls.filter((c) => c === 'POST /v1/refunds').length;
}

async function dispatchDue(): Promise<number> {
  return runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
}

describe('a Fintoc refund whose create answer was lost', () => {
  it('is found at Fintoc more than 24 hours later, when Fintoc has dropped its key: one refund, not two', async () => {
    const saleId = await paidSale('lk-1', 8000);
    const row = await refundWithLostAnswer(saleId, 8000, 'reset');
    const first = atFintoc(row.id);
    expect(first).toHaveLength(1);
    // Cobro was down for a day: the retry comes after Fintoc forgot the key.
    t.clock.advanceMs(25 * hourMs);
    sim.forgetKeys();
    expect(await dispatchDue()).toBe(1);
    expect(atFintoc(row.id)).toHaveLength(1);
    const after = await refundRow(saleId);
    expect(after.status).toBe('reverse_completed');
    expect(after.refund_code).toBe(first[0]!.id);
    expect(sim.calls).toContain('GET /v1/refunds');
  });

  it('is sent again with the same key when Fintoc shows none, within the limits', async () => {
    const saleId = await paidSale('lk-2', 6000);
    const row = await refundWithLostAnswer(saleId, 6000, 'drop');
    expect(atFintoc(row.id)).toHaveLength(0);
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
    const before = creates();
    await dispatchDue();
    expect(creates()).toBe(before + 1);
    expect(atFintoc(row.id)).toHaveLength(1);
    expect((await refundRow(saleId)).status).toBe('reverse_completed');
  });

  it('is not sent again past fintocLimits.refundResendWindowMs: left complete, no longer asked', async () => {
    const saleId = await paidSale('lk-3', 5000);
    const row = await refundWithLostAnswer(saleId, 5000, 'drop');
    t.clock.advanceMs(fintocLimits.refundResendWindowMs + refundLimits.dispatchLeaseMs + 1000);
    const before = creates();
    await dispatchDue();
    expect(creates()).toBe(before);
    expect(atFintoc(row.id)).toHaveLength(0);
    const after = await refundRow(saleId);
    expect([after.status, after.dispatch_due_at]).toEqual(['complete', null]);
    // It is not asked about again.
    t.clock.advanceMs(refundLimits.inProgressRecheckMs);
    await dispatchDue();
    expect(creates()).toBe(before);
  });

  it('is sent again at most fintocLimits.refundRetriesMax times', async () => {
    const saleId = await paidSale('lk-4', 4000);
    const row = await refundWithLostAnswer(saleId, 4000, 'drop');
    const before = creates();
    sim.refundFault = 'drop';
    try {
      for (let i = 0; i < fintocLimits.refundRetriesMax + 3; i++) {
        t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
        await dispatchDue();
      }
    } finally {
      sim.refundFault = null;
    }
    expect(creates()).toBe(before + fintocLimits.refundRetriesMax);
    const after = await refundRow(saleId);
    expect([after.status, after.dispatch_due_at]).toEqual(['complete', null]);
    expect(atFintoc(row.id)).toHaveLength(0);
  });

  it('is not reverse_deleted with the money back when Fintoc refuses the resend', async () => {
    const saleId = await paidSale('lk-5', 7000);
    const row = await refundWithLostAnswer(saleId, 7000, 'drop');
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
    sim.refundFault = 'refuse';
    try {
      await dispatchDue();
    } finally {
      sim.refundFault = null;
    }
    const after = await refundRow(saleId);
    // A refusal of a resend proves nothing (the first request may have made the refund): the operator's.
    expect([after.status, after.dispatch_due_at]).toEqual(['complete', null]);
    const sale = await t.ctx.db
      .selectFrom('transactions')
      .select(['status', 'refunded_minor'])
      .where('id', '=', saleId)
      .executeTakeFirstOrThrow();
    expect([sale.status, Number(sale.refunded_minor)]).toEqual(['refunded', 7000]);
    expect(atFintoc(row.id)).toHaveLength(0);
  });

  it('is not sent while the refund list fails, and is found once it answers', async () => {
    const saleId = await paidSale('lk-6', 3000);
    const row = await refundWithLostAnswer(saleId, 3000, 'reset');
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
    sim.forgetKeys();
    sim.refundListFault = 'fail';
    const before = creates();
    try {
      await dispatchDue();
    } finally {
      sim.refundListFault = null;
    }
    expect(creates()).toBe(before);
    expect((await refundRow(saleId)).status).toBe('complete');
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
    await dispatchDue();
    expect(creates()).toBe(before);
    expect(atFintoc(row.id)).toHaveLength(1);
    expect((await refundRow(saleId)).status).toBe('reverse_completed');
  });
});
