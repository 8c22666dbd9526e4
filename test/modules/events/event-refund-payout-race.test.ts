// Decision 650: a sale that settles while the event's payout runs is dated before that payout (settlement reads its
// time before it waits for the event's lock). When a refund compared the two times, it believed the beneficiary's
// part already paid out: the merchant's wallet paid that part and the beneficiary's payable kept it, for the next
// payout to pay again. A part is now marked paid out by the payout that swept it. PostgreSQL only: it needs two
// transactions at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, submit } from '../transactions/helpers.ts';
import { balanceOf, nullify } from '../refunds/helpers.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { runEventPayouts } from '../../../src/modules/events/payouts.ts';
import { ledgerCodes } from '../../../src/platform/ledger/ledger.ts';

const onPostgres = (process.env.DATABASE_URL ?? '') !== '';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clockStart: '2026-03-10T15:00:00Z' });
});
afterAll(async () => {
  await t.close();
});

describe.runIf(onPostgres)('event refund after a sale settled during a payout', () => {
  it('takes the refunded part back from the payable, not from the merchant while the beneficiary keeps it', async () => {
    const a = await t.createAccount();
    const created = await t.call(a, {
      method: 'POST',
      url: '/api/event',
      body: {
        event: 'race',
        name: 'Race',
        date_event: '2026-03-20',
        date_closing_sales: '2026-03-19 23:59:00',
        date_payment: '2026-03-22',
        affiliation: [['banda@example.com', 50]],
      },
    });
    expect(created.json().status).toBe('success');
    const sale1 = await createTransaction(t, a, { event: 'race', amount: 10_000 });
    expect((await submit(t, sale1.url, 1, approvedVisa)).statusCode).toBe(200);
    // Sale 1 settles (the event's payout is scheduled), date_payment is still ahead.
    await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { days: 4 } });
    const sale2 = await createTransaction(t, a, { event: 'race', amount: 10_000 });
    expect((await submit(t, sale2.url, 1, approvedVisa)).statusCode).toBe(200);
    const event = await t.ctx.db
      .selectFrom('events')
      .select(['id', 'payout_status'])
      .executeTakeFirstOrThrow();
    expect(event.payout_status).toBe('scheduled');
    const person = await t.ctx.db
      .selectFrom('event_beneficiaries')
      .select('id')
      .executeTakeFirstOrThrow();

    // The service clock passes date_payment and sale 2's settlement date; nothing drained yet.
    t.clock.advanceMs(10 * 86_400_000);
    const scope = { accountId: a.id, limit: 100 };

    // Another transaction holds the merchant's pending settlement for a moment (any concurrent money movement does).
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const blocker = t.ctx.db.transaction().execute(async (tx) => {
      await t.ctx.ledger.hold(tx, [
        { owner: a.id, code: ledgerCodes.pendingSettlement, currency: 'CLP' },
      ]);
      holding();
      await released;
    });
    await held;
    const settling = runSettlements(t.ctx, scope); // reads its time, then waits on the pending settlement
    await new Promise((r) => setTimeout(r, 500));
    t.clock.advanceMs(1000);
    expect(await runEventPayouts(t.ctx, scope)).toBe(1); // pays sale 1's part
    release();
    await blocker;
    expect(await settling).toBeGreaterThanOrEqual(1); // sale 2's part lands in the payable, after the payout

    const share = await t.ctx.db
      .selectFrom('event_sale_shares')
      .select(['amount_minor'])
      .where('transaction_id', '=', sale2.id)
      .executeTakeFirstOrThrow();
    expect(share.amount_minor).toBeGreaterThan(0n);
    const payableBefore = await balanceOf(t, person.id, ledgerCodes.beneficiaryPayable);
    expect(payableBefore).toBe(share.amount_minor); // sale 2's part waits for the next payout

    // Half of sale 2 refunded: half of the beneficiary's part of it should leave its payable.
    const refund = await nullify(t, a, { id: sale2.id, amount: 5_000 });
    expect(refund.json().status).not.toBe('failed');
    const payableAfter = await balanceOf(t, person.id, ledgerCodes.beneficiaryPayable);
    expect(payableAfter).toBe(share.amount_minor - share.amount_minor / 2n);
  });
});
