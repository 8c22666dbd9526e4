// Decision 1240: how Cobro reads a failed call to Fintoc's money-moving endpoints. A 4xx is Fintoc's refusal (nothing
// done); a 5xx, no answer, or an answer whose body cannot be read is "may have happened": never a refusal, never a
// result. The client maps an answer to an error class by the type its body names, not by its status, so a 5xx whose
// body names `invalid_request_error` used to read as a refusal, and a 200 with a garbled body as an object with no id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator, RawAnswer } from '../../support/fintoc-simulator.ts';
import {
  openFintocSession,
  paidFintocSale,
  refundRowOf,
  startFintocShop,
} from '../../support/fintoc-shop.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits, refundLimits } from '../../../src/limits/index.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { balance, payout } from '../wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Respuestas', 'a0', {
    payouts: { fundMinor: 100_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** A gateway's 503 after Fintoc acted, its body in Fintoc's error shape naming a refusal's type. */
const gateway503: RawAnswer = {
  status: 503,
  contentType: 'application/json',
  body: JSON.stringify({ error: { type: 'invalid_request_error', message: 'upstream timed out' } }),
};
const garbled200: RawAnswer = { status: 200, contentType: 'text/html', body: '<html>ok</html>' };

async function transferRow(id: string) {
  const p = await t.ctx.db
    .selectFrom('payouts')
    .select(['status', 'reason_rejection'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const f = await t.ctx.db
    .selectFrom('fintoc_transfers')
    .select(['state', 'transfer_id', 'mismatch'])
    .where('payout_id', '=', id)
    .executeTakeFirstOrThrow();
  return { ...p, ...f };
}

/** A payout whose first send Fintoc acted on, answered with `answer`; its id. */
async function payoutAnswered(order: string, amount: number, answer: RawAnswer): Promise<string> {
  sim.transferAnswer = answer;
  try {
    const id = (await payout(t, shop, { amount, order })).json().identifier_payout as string;
    await drainDueWork(t.ctx, shop.id);
    return id;
  } finally {
    sim.transferAnswer = null;
  }
}

function madeFor(payoutId: string) {
  return [...sim.transfers.values()].filter(
    (tr) => (tr.metadata as Record<string, unknown>).cobro_payout_id === payoutId,
  );
}

describe('a Fintoc transfer whose create is answered with no verdict', () => {
  it('a 5xx whose body names invalid_request_error is a lost answer, not a refusal: its money stays held', async () => {
    const held = await balance(t, shop);
    const id = await payoutAnswered('oa-503', 2300, gateway503);
    expect(madeFor(id)).toHaveLength(1);
    // Read as a refusal, the payout was a banking_error and its 2300 went back to the shop while Fintoc paid them.
    expect(await transferRow(id)).toMatchObject({ status: 'processing', state: 'sending' });
    expect(await balance(t, shop)).toBe(held - 2300);
    // The lookup finds the transfer Fintoc made: one transfer, recorded.
    t.clock.advanceMs(fintocLimits.transferResendAfterMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(madeFor(id)).toHaveLength(1);
    expect(await transferRow(id)).toMatchObject({ state: 'sent', transfer_id: madeFor(id)[0]!.id });
  });

  it('a 200 whose body is not JSON is a lost answer, not a transfer with no id', async () => {
    const id = await payoutAnswered('oa-garbled', 1700, garbled200);
    // Read as an answer, it was a transfer with no id for an amount of `undefined`: its result was refused by the
    // amount check (decision 992), which held the money but recorded a mismatch for the operator that never was.
    expect(await transferRow(id)).toMatchObject({
      state: 'sending',
      transfer_id: null,
      mismatch: null,
    });
    t.clock.advanceMs(fintocLimits.transferResendAfterMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(await transferRow(id)).toMatchObject({ state: 'sent', transfer_id: madeFor(id)[0]!.id });
  });
});

/** Refunds the sale in full while Fintoc answers the create with `answer` (the refund made); the refund's row. */
async function refundAnswered(saleId: string, amount: number, answer: RawAnswer) {
  sim.refundAnswer = answer;
  try {
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: saleId, amount, subject: 'devolución' },
    });
    expect(res.statusCode, res.body).toBe(200);
  } finally {
    sim.refundAnswer = null;
  }
  return refundRowOf(t, saleId);
}

describe('a Fintoc refund whose create is answered with no verdict', () => {
  it('a 5xx whose body names invalid_request_error is asked again, not refused', async () => {
    const saleId = await paidFintocSale(t, sim, shop, 'oa-r503', 4100);
    const row = await refundAnswered(saleId, 4100, gateway503);
    // Read as a refusal, the refund was recorded refused though Fintoc gave the payer the 4100.
    expect([row.status, row.refund_code]).toEqual(['complete', null]);
    expect(row.dispatch_due_at).not.toBeNull();
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    const made = [...sim.refunds.values()].filter(
      (r) => (r.metadata as Record<string, unknown>).cobro_nullification_id === row.id,
    );
    expect(made).toHaveLength(1);
    const after = await refundRowOf(t, saleId);
    expect([after.status, after.refund_code]).toEqual(['reverse_completed', made[0]!.id]);
  });

  it('a 200 whose body is not JSON is asked again, not a refund in progress with no id', async () => {
    const saleId = await paidFintocSale(t, sim, shop, 'oa-rgarbled', 2900);
    const row = await refundAnswered(saleId, 2900, garbled200);
    // Read as an answer, it was a refund `in_progress` whose code is "undefined", read at Fintoc forever after.
    expect([row.status, row.refund_code]).toEqual(['complete', null]);
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    const after = await refundRowOf(t, saleId);
    expect(after.status).toBe('reverse_completed');
    expect(sim.refunds.has(String(after.refund_code))).toBe(true);
  });
});

describe('a Fintoc session the payer cancels, whose expire is answered with no verdict', () => {
  it('a 200 whose body is not JSON leaves the sale undecided, not cancelled while Fintoc still takes payment', async () => {
    const { sale, session } = await openFintocSession(t, shop, 'oa-expire', 3300);
    const statusOf = async () =>
      (
        await t.ctx.db
          .selectFrom('transactions')
          .select('status')
          .where('id', '=', sale.id)
          .executeTakeFirstOrThrow()
      ).status;
    const before = await statusOf();
    const cancelUrl = new URL(String(sim.sessions.get(session)!.cancel_url));
    sim.expireAnswer = garbled200;
    try {
      await t.app.inject({ method: 'GET', url: `${cancelUrl.pathname}${cancelUrl.search}` });
    } finally {
      sim.expireAnswer = null;
    }
    // Fintoc expired nothing: the payer may still pay on its page. Read as an expired session, the sale was
    // declined as cancelled by the payer.
    expect(sim.sessions.get(session)!.status).toBe('created');
    const held = await t.ctx.db
      .selectFrom('processor_sessions')
      .select('state')
      .where('token', '=', session)
      .executeTakeFirstOrThrow();
    expect([await statusOf(), held.state]).toEqual([before, 'redirected']);
  });
});
