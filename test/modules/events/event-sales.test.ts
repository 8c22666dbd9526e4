// The seams the transaction flow calls for a sale that names an event, exercised directly on a real database;
// paymentData is read back through GET /api/event and the payout runs on the sandbox clock through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { postPaidPayment } from '../../support/paid-payment.ts';
import {
  recordEventSale,
  resolveEventForSale,
  settleEventSale,
  type EventSaleSplit,
} from '../../../src/modules/events/sales.ts';
import { parseLocal } from '../../../src/platform/time/time-format.ts';
import { ledgerCodes, SYSTEM_OWNER } from '../../../src/platform/ledger/codes.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const zone = 'America/Santiago';
const event = {
  event: 'fest-2026',
  name: 'Fest',
  date_event: '2026-03-20',
  date_closing_sales: '2026-03-19 23:59:00',
  date_payment: '2026-03-22',
  service_sale: 100,
  affiliation: [
    { email: 'a@example.com', percent: 60 },
    { email: 'b@example.com', percent: '30' },
  ],
};
const getEvent = async (code = event.event) =>
  (await t.call(merchant, { method: 'GET', url: `/api/event/${code}` })).json();
const advance = (body: Record<string, number>) =>
  t.call(merchant, { method: 'POST', url: '/api/sandbox/clock/advance', body });

async function sell(
  eventId: string,
  transactionId: string,
  grossMinor: bigint,
  feeMinor: bigint,
  at: Date,
): Promise<EventSaleSplit> {
  return t.ctx.db.transaction().execute(async (tx) => {
    await postPaidPayment(tx, {
      accountId: merchant.id,
      transactionId,
      currency: 'CLP',
      grossMinor,
      feeMinor,
      at,
    });
    return recordEventSale(tx, {
      accountId: merchant.id,
      eventId,
      transactionId,
      currency: 'CLP',
      grossMinor,
      feeMinor,
      at,
    });
  });
}

describe('event sale seams', () => {
  let eventId = '';

  it('takes sales until date_closing_sales, fixes the currency with the first, and knows unknown events', async () => {
    expect(
      (await t.call(merchant, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).toBe('success');
    const resolve = (code: string, at: Date, currency = 'CLP') =>
      t.ctx.db
        .transaction()
        .execute((tx) => resolveEventForSale(tx, merchant.id, code, at, currency));
    const open = await resolve(event.event, t.clock.now());
    if (!open.ok) throw new Error('event should take sales');
    eventId = open.event.id;
    expect(open.event).toMatchObject({ code: 'fest-2026', name: 'Fest', currency: 'CLP' });
    expect(await resolve(event.event, parseLocal('2026-03-19 23:59:00', zone)!)).toMatchObject({
      ok: true,
    });
    expect(await resolve(event.event, parseLocal('2026-03-19 23:59:01', zone)!)).toEqual({
      ok: false,
      reason: 'closed',
      failure: {
        status: 'failed',
        type: 'event_sales_closed',
        message_error: 'sales for event fest-2026 are closed',
      },
    });
    expect(await resolve(event.event, t.clock.now(), 'PEN')).toMatchObject({
      ok: false,
      reason: 'currency',
      failure: { type: 'event_currency_mismatch' },
    });
    expect(await resolve('nope', t.clock.now())).toEqual({ ok: false, reason: 'unknown' });
    const other = await t.createAccount('Other');
    expect(
      await t.ctx.db
        .transaction()
        .execute((tx) => resolveEventForSale(tx, other.id, event.event, t.clock.now(), 'CLP')),
    ).toEqual({ ok: false, reason: 'unknown' });
  });

  it('paymentData is the sum of the recorded paid sales, and a sale recorded twice counts once', async () => {
    expect(await getEvent()).not.toHaveProperty('paymentData');
    const at = t.clock.now();
    const sales = [
      await sell(eventId, 'trx_ev_1', 10_000n, 299n, at),
      await sell(eventId, 'trx_ev_2', 5_001n, 151n, at),
      // A net below the service amount leaves nothing for the beneficiaries.
      await sell(eventId, 'trx_ev_3', 50n, 2n, at),
    ];
    // 9701 - 100 = 9601 by 60 / 30 / (10 merchant): 5760.6, 2880.3, 960.1 -> 5761, 2880, 960.
    expect(sales[0]).toMatchObject({
      netMinor: 9701n,
      affiliateMinor: 8641n,
      merchantMinor: 1060n,
    });
    expect(sales[0]!.parts.map((p) => p.amountMinor)).toEqual([5761n, 2880n]);
    expect(sales[2]).toMatchObject({ netMinor: 48n, affiliateMinor: 0n, merchantMinor: 48n });
    const replay = await t.ctx.db.transaction().execute((tx) =>
      recordEventSale(tx, {
        accountId: merchant.id,
        eventId,
        transactionId: 'trx_ev_1',
        currency: 'CLP',
        grossMinor: 10_000n,
        feeMinor: 299n,
        at,
      }),
    );
    expect(replay).toEqual(sales[0]);
    const sum = (f: (s: EventSaleSplit) => bigint) => Number(sales.reduce((a, s) => a + f(s), 0n));
    expect((await getEvent()).paymentData).toEqual({
      count: 3,
      amount_general: 15_051,
      amount_affiliate: sum((s) => s.affiliateMinor),
      fee: 452,
      balance: sum((s) => s.merchantMinor),
    });
    expect(15_051 - 452).toBe(sum((s) => s.affiliateMinor) + sum((s) => s.merchantMinor));
  });

  it("moves the beneficiaries' parts at settlement and pays them on date_payment, not before", async () => {
    const at = t.clock.now();
    for (const id of ['trx_ev_1', 'trx_ev_2', 'trx_ev_3']) {
      await t.ctx.db
        .transaction()
        .execute((tx) =>
          settleEventSale(t.ctx.ledger, tx, { accountId: merchant.id, transactionId: id, at }),
        );
    }
    const again = await t.ctx.db.transaction().execute((tx) =>
      settleEventSale(t.ctx.ledger, tx, {
        accountId: merchant.id,
        transactionId: 'trx_ev_1',
        at,
      }),
    );
    expect(again.journal).toBeNull();
    const [a, b] = (await getEvent()).affiliations as Array<{ id: string; status: string }>;
    const payable = (owner: string) =>
      readBalance(t.ctx.db, { owner, code: ledgerCodes.beneficiaryPayable, currency: 'CLP' });
    const paymentData = (await getEvent()).paymentData;
    expect((await payable(a!.id)) + (await payable(b!.id))).toBe(
      BigInt(paymentData.amount_affiliate),
    );
    expect(
      await readBalance(t.ctx.db, {
        owner: merchant.id,
        code: ledgerCodes.pendingSettlement,
        currency: 'CLP',
      }),
    ).toBe(BigInt(paymentData.balance));

    // 2026-03-10 12:00 + 11 days is 2026-03-21 12:00: before date_payment.
    await advance({ days: 11 });
    expect((await getEvent()).affiliations.map((x: { status: string }) => x.status)).toEqual([
      'pending',
      'pending',
    ]);
    const res = await advance({ days: 1 });
    expect(res.json().processed['event-beneficiary-payouts']).toBe(1);
    expect((await getEvent()).affiliations.map((x: { status: string }) => x.status)).toEqual([
      'paid',
      'paid',
    ]);
    expect(await payable(a!.id)).toBe(0n);
    expect(await payable(b!.id)).toBe(0n);
    expect(
      await readBalance(t.ctx.db, {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.bankClearing,
        currency: 'CLP',
      }),
    ).toBe(BigInt(paymentData.amount_affiliate));

    // A sale paid before closing but settled after the payout ran is paid by the next run.
    await sell(eventId, 'trx_ev_4', 1_000n, 0n, at);
    await t.ctx.db.transaction().execute((tx) =>
      settleEventSale(t.ctx.ledger, tx, {
        accountId: merchant.id,
        transactionId: 'trx_ev_4',
        at: t.clock.now(),
      }),
    );
    expect(await payable(a!.id)).toBe(540n);
    expect((await advance({ seconds: 1 })).json().processed['event-beneficiary-payouts']).toBe(1);
    expect(await payable(a!.id)).toBe(0n);
    const bank = await readBalance(t.ctx.db, {
      owner: SYSTEM_OWNER,
      code: ledgerCodes.bankClearing,
      currency: 'CLP',
    });
    expect(bank).toBe(BigInt((await getEvent()).paymentData.amount_affiliate));
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
