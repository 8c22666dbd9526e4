// Reviewer findings (r-connectors) on the Fintoc connector, against the local simulator:
// 1. Fintoc's refund is answered `created` or `in_progress` and ends `succeeded`, `failed` or `canceled` later
//    (docs.fintoc.com, "The Refund object"; a refund the merchant's available balance cannot cover is retried for 5
//    business days and then fails; a closed payer account fails it). Cobro reads every status but failed, canceled
//    and rejected as done (`reverse_completed`) and ignores Fintoc's refund.* events, so a refund that fails at
//    Fintoc stays `reverse_completed`: the merchant's wallet is debited and the payer never gets the money.
// 2. A payout whose create-transfer answer was lost is sent again with the same idempotency key; when Fintoc refuses
//    that resend (invalid_request_error: its parameters differ from the first request's, or the key is over 24
//    hours old and Fintoc processes it as new), Cobro records banking_error and returns the amount to the wallet,
//    although the first request's transfer exists and is paid out: the money leaves twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop, fintocWebhook, paidFintocPayment } from '../../support/fintoc-shop.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits, refundLimits } from '../../../src/limits/index.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { balance, payout } from '../wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Revisada', 'cd', {
    payouts: { fundMinor: 100_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paidSale = (order: string, amount: number) => paidFintocPayment(t, sim, shop, order, amount);

describe('Fintoc refunds are final only when Fintoc says so', () => {
  it('a refund Fintoc answers in_progress and then fails does not stay reverse_completed', async () => {
    const { id, intent } = await paidSale('rf-1', 9000);
    sim.refundStatus = 'in_progress';
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id, amount: 4000, subject: 'devolución' },
    });
    sim.refundStatus = 'succeeded';
    expect(res.statusCode, res.body).toBe(200);
    const refundCall = sim.calls.filter((c) => c === 'POST /v1/refunds');
    expect(refundCall.length).toBeGreaterThan(0);
    // Five business days later Fintoc gives up (the merchant's Fintoc balance did not cover it).
    await fintocWebhook(t, sim, shop, 'refund.failed', {
      object: 'refund',
      status: 'failed',
      failure_code: 'insufficient_funds',
      amount: 4000,
      currency: 'CLP',
      resource_type: 'payment_intent',
      resource_id: intent,
    });
    const n = await t.ctx.db
      .selectFrom('nullifications')
      .select('status')
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(n.status).not.toBe('reverse_completed');
  });
});

describe('a refund Fintoc refuses outright', () => {
  // 4. Fintoc answering the refund with invalid_request_error (it refunds nothing) makes fintocProcessor.refund throw;
  //    the dispatch reads any throw as a lost answer and asks again after every lease, without end (Fintoc keeps
  //    the 4xx for the key, so each retry gets it again): the nullification stays `complete` and the collected money
  //    never goes back to the merchant. Webpay and Oneclick read a 4xx as refused (`reverse_deleted`, money back).
  it('ends reverse_deleted with the money back instead of being retried for ever', async () => {
    const { id } = await paidSale('rf-2', 5000);
    sim.refundFault = 'refuse';
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id, amount: 5000, subject: 'devolución total' },
    });
    expect(res.statusCode, res.body).toBe(200);
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10 });
    sim.refundFault = null;
    const n = await t.ctx.db
      .selectFrom('nullifications')
      .select('status')
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(n.status).toBe('reverse_deleted');
  });
});

describe('a payout transfer resent after a lost answer', () => {
  it('is not a banking_error with the money back when Fintoc refuses the resend', async () => {
    // The earlier tests' due work (their sales' settlement) done first, so the balance below moves by this payout only.
    t.clock.advanceMs(fintocLimits.transferResendAfterMs + 1000);
    await drainDueWork(t.ctx);
    const before = await balance(t, shop);
    const created = (await payout(t, shop, { amount: 6000, order: 'rs-1' })).json();
    const id = created.identifier_payout as string;
    // The first create makes the transfer at Fintoc and its answer is lost.
    sim.transferFault = 'reset';
    await drainDueWork(t.ctx);
    const made = [...sim.transfers.values()].filter(
      (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === id,
    );
    expect(made).toHaveLength(1);
    // The resend is refused (parameters changed, or the idempotency key was older than Fintoc keeps it).
    sim.transferFault = 'refuse';
    t.clock.advanceMs(fintocLimits.transferResendAfterMs + 1000);
    await drainDueWork(t.ctx);
    sim.transferFault = null;
    const row = await t.ctx.db
      .selectFrom('payouts')
      .select(['status', 'reason_rejection'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // The transfer Fintoc made is going out: the payout is not failed and its money is not back in the wallet.
    expect(row.status).toBe('processing');
    expect(await balance(t, shop)).toBe(before - 6000);
  });
});

// 3. Fintoc names a Chilean bank by its institution id (`cl_banco_de_chile`, as in its Refund and Checkout Session
//    objects' recipient_account and the Transfer's counterparty.institution.id); Cobro sends the SBIF code
//    (`accountbank_sbif`, `0001`) as `counterparty.institution_id`, which Fintoc does not know: every production
//    payout would be refused and end as banking_error. (Format taken from Fintoc's documented examples.)
describe('the transfer names the payee bank as Fintoc does', () => {
  it('sends a Fintoc institution id, not the SBIF code', async () => {
    const created = (await payout(t, shop, { amount: 1500, order: 'inst-1' })).json();
    await drainDueWork(t.ctx);
    const sent = [...sim.transfers.values()].find(
      (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === created.identifier_payout,
    )!;
    const counterparty = sent.counterparty as Record<string, unknown>;
    expect(String(counterparty.institution_id)).toMatch(/^cl_[a-z_]+$/);
  });
});
