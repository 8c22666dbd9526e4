// Decision 1115: a Webpay refund whose first send was lost is asked again while another refund of the same charge,
// for the same amount, is applied at Transbank with its answer still on the way. Webpay's refund takes no
// idempotency key, so the retry reads the charge's balance (decision 141): that balance holds the other refund's
// part, which the retry cannot tell from its own. Before, the retry read it as its own and recorded itself given back
// though Transbank never took it; the other's answer then recorded that same money again: Cobro's books gave the
// payer 4 000 where Transbank gave 2 000. A retry now waits while another refund of the charge is at the processor
// undecided, and a first send waits while another is being retried. The real `transbank-sdk` against the simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../../support/webpay-simulator.ts';
import { paidAtWebpay, webpayShop } from '../../support/webpay-shop.ts';
import { refundLimits, transactionLimits } from '../../../src/limits/index.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balanceOf, nullify } from './helpers.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1115');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const refundsOf = (saleId: string) =>
  t.ctx.db
    .selectFrom('nullifications')
    .select(['id', 'status', 'amount_minor', 'dispatch_due_at'])
    .where('transaction_id', '=', saleId)
    .orderBy('seq')
    .execute();

/** A hook for the simulator that holds a call until released, and tells when one arrived. */
function gate() {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return {
    reached,
    release,
    hook: () => {
      arrived();
      return held;
    },
  };
}

/** Asks whatever is still to ask, as the due work would after each lease, a bounded number of times. */
async function askUntilDecided(saleId: string): Promise<void> {
  for (let round = 0; round < 4; round++) {
    const due = (await refundsOf(saleId)).flatMap((r) =>
      r.status === 'complete' && r.dispatch_due_at !== null ? [r.dispatch_due_at] : [],
    );
    if (due.length === 0) return;
    clockPast(new Date(Math.max(...due.map((d) => d.getTime()))));
    await runRefundDispatch(t.ctx, { limit: 10 });
  }
}

/** What Cobro recorded given back of `sale` equals what Transbank gave back, both refunds ended. */
async function givenBackAsTransbank(sale: { id: string; token: string }): Promise<void> {
  const rows = await refundsOf(sale.id);
  const givenBackMinor = rows
    .filter((r) => r.status === 'reverse_completed')
    .reduce((s, r) => s + Number(r.amount_minor), 0);
  const atTransbank = sim.transactions.get(sale.token)!.refunds.reduce((s, a) => s + a, 0);
  expect(givenBackMinor, rows.map((r) => `${r.status} ${r.amount_minor}`).join(', ')).toBe(
    atTransbank,
  );
  expect(rows.map((r) => r.status)).toEqual(['reverse_completed', 'reverse_completed']);
  expect(atTransbank).toBe(4_000);
  expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
}

/** Moves the service clock just past `at`. */
function clockPast(at: Date): void {
  t.clock.advanceMs(at.getTime() - t.clock.now().getTime() + 1_000);
}

describe('a Webpay refund retried while another of its charge is applied and unanswered', () => {
  it('is not taken for the other: Cobro gives back what Transbank gave back', async () => {
    const sale = await paidAtWebpay(t, shop, sim.url, 9_000);
    // The first refund's send never reached Transbank (the connection dropped): it is to be asked again.
    sim.refundFault = 'drop';
    const first = await nullify(t, shop, { id: sale.id, amount: 2_000, subject: 'uno' });
    sim.refundFault = 'none';
    expect(first.json().nullify.status_nullify, first.body).toBe('complete');
    const [r1] = await refundsOf(sale.id);
    t.clock.advanceMs((r1!.dispatch_due_at!.getTime() - t.clock.now().getTime()) / 2);

    // A second refund of the same amount: Transbank applies it, its answer held on the way.
    const answer = gate();
    sim.refundHeld = answer.hook;
    const second = nullify(t, shop, { id: sale.id, amount: 2_000, subject: 'dos' });
    await answer.reached;
    sim.refundHeld = null;
    expect(sim.transactions.get(sale.token)!.balance).toBe(7_000);

    // The first's lease runs out while the second is in flight: the due work asks about it again.
    clockPast(r1!.dispatch_due_at!);
    await runRefundDispatch(t.ctx, { limit: 10 });
    answer.release();
    expect((await second).json().status, 'second refund answered').toBe('success');
    await askUntilDecided(sale.id);
    await givenBackAsTransbank(sale);
  });
});

describe('a Webpay refund sent while another of its charge is being asked again', () => {
  it('waits, so the retry reads a balance that holds only its own part', async () => {
    const sale = await paidAtWebpay(t, shop, sim.url, 9_000);
    sim.refundFault = 'drop';
    const first = await nullify(t, shop, { id: sale.id, amount: 2_000, subject: 'uno' });
    sim.refundFault = 'none';
    expect(first.json().nullify.status_nullify, first.body).toBe('complete');
    const [r1] = await refundsOf(sale.id);

    // The first is asked again: claimed, its status read of the charge held on the way.
    clockPast(r1!.dispatch_due_at!);
    const read = gate();
    sim.statusHeld = read.hook;
    const retry = runRefundDispatch(t.ctx, { limit: 10 });
    await read.reached;
    sim.statusHeld = null;

    // Meanwhile a second refund of the same amount: before, sent and applied at once, so the held read then saw
    // its part and took it for the first's.
    const second = await nullify(t, shop, { id: sale.id, amount: 2_000, subject: 'dos' });
    expect(second.json().status, second.body).toBe('success');
    read.release();
    await retry;
    await askUntilDecided(sale.id);
    await givenBackAsTransbank(sale);
  });
});

describe('two refunds of one charge, both sends lost, asked as each falls due (decision 1165)', () => {
  it('are asked again and given back, not kept waiting on each other until left for the operator', async () => {
    const sale = await paidAtWebpay(t, shop, sim.url, 9_000);
    // Both sends dropped before Transbank took them, the second half a lease after the first.
    sim.refundFault = 'drop';
    await nullify(t, shop, { id: sale.id, amount: 2_000, subject: 'uno' });
    t.clock.advanceMs(refundLimits.dispatchLeaseMs / 2);
    await nullify(t, shop, { id: sale.id, amount: 3_000, subject: 'dos' });
    sim.refundFault = 'none';
    // The due work at each refund's own due time, one beat each (not both at once, as askUntilDecided does). The
    // first falls due while the second's lease runs, so it waits: rightly. Before, its wait moved it a whole lease
    // on, past the second's due time, where the second then read that wait as an ask in flight and waited in turn,
    // and so on each lease: neither was asked again, until lostAnswerAskMsMax left both for the operator.
    for (let round = 0; round < 6; round++) {
      const due = (await refundsOf(sale.id)).flatMap((r) =>
        r.status === 'complete' && r.dispatch_due_at !== null ? [r.dispatch_due_at.getTime()] : [],
      );
      if (due.length === 0) break;
      clockPast(new Date(Math.min(...due)));
      await runRefundDispatch(t.ctx, { limit: 10 });
    }
    const rows = await refundsOf(sale.id);
    expect(rows.map((r) => r.status)).toEqual(['reverse_completed', 'reverse_completed']);
    expect(sim.transactions.get(sale.token)!.refunds.reduce((s, a) => s + a, 0)).toBe(5_000);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe("a refund's ask and its lease", () => {
  it('the ask (a status read, the refund, a status read after a reversal) ends within the lease others wait out', () => {
    expect(3 * transactionLimits.acquirer.requestTimeoutMs).toBeLessThan(
      refundLimits.dispatchLeaseMs,
    );
  });
});

describe('refunds of one Webpay charge at once, some refused by Transbank', () => {
  it('give the refused back while others are taken: the books match Transbank, the ledger is clean', async () => {
    const pendingBefore = await balanceOf(t, shop.id, 'pending_settlement');
    const sale = await paidAtWebpay(t, shop, sim.url, 9_000);
    // 5 000 given back at Transbank's portal and not recorded in Cobro: Transbank holds 4 000 of the charge.
    const charge = sim.transactions.get(sale.token)!;
    charge.balance -= 5_000;
    charge.state = 'PARTIALLY_NULLIFIED';
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        nullify(t, shop, { id: sale.id, amount: 1_500, subject: `r${i}` }),
      ),
    );
    for (const r of answers) expect(r.statusCode, r.body).toBe(200);
    const rows = await refundsOf(sale.id);
    expect(rows.map((r) => r.status).sort()).toEqual([
      'reverse_completed',
      'reverse_completed',
      'reverse_deleted',
      'reverse_deleted',
      'reverse_deleted',
      'reverse_deleted',
    ]);
    const standingMinor = rows
      .filter((r) => r.status === 'reverse_completed')
      .reduce((s, r) => s + BigInt(r.amount_minor), 0n);
    expect(standingMinor).toBe(BigInt(charge.refunds.reduce((s, a) => s + a, 0)));
    const after = await t.ctx.db
      .selectFrom('transactions')
      .select(['refunded_minor', 'status'])
      .where('id', '=', sale.id)
      .executeTakeFirstOrThrow();
    expect([BigInt(after.refunded_minor), after.status]).toEqual([
      standingMinor,
      'refunded partial',
    ]);
    // The refused gave their part back to the sale's pending settlement: it holds the net less what stands.
    const standing = await t.ctx.db
      .selectFrom('nullifications')
      .select(['amount_minor', 'fee_back_minor'])
      .where('transaction_id', '=', sale.id)
      .where('status', '=', 'reverse_completed')
      .execute();
    const paid = await t.ctx.db
      .selectFrom('transactions')
      .select(['amount_minor', 'fee_minor'])
      .where('id', '=', sale.id)
      .executeTakeFirstOrThrow();
    const netMinor = BigInt(paid.amount_minor) - BigInt(paid.fee_minor ?? 0n);
    const tookMinor = standing.reduce(
      (s, r) => s + BigInt(r.amount_minor) - BigInt(r.fee_back_minor),
      0n,
    );
    expect(await balanceOf(t, shop.id, 'pending_settlement')).toBe(
      pendingBefore + netMinor - tookMinor,
    );
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
