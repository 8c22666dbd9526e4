// Event sales through the real payment flow: transactions created with `event` over HTTP, paid (or declined) on
// the hosted checkout's form, settled and paid out on the sandbox clock. paymentData and the ledger must agree
// with sums computed here from the transactions themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import {
  approvedVisa,
  createTransaction,
  rejectedMastercard,
  submit,
  submitUntilRejected,
} from '../transactions/helpers.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { setFeeRule } from '../../../src/modules/transactions/fees.ts';
import { splitByBasisPoints } from '../../../src/platform/money/split.ts';
import { ledgerCodes, SYSTEM_OWNER } from '../../../src/platform/ledger/codes.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Productora Sur');
  // 2.95 % + 10 on cards, so fee, net and the division all have remainders.
  await setFeeRule(t.ctx.db, merchant.id, 1, { percentBp: 295, fixedMinor: 10n }, t.clock.now());
});
afterAll(async () => {
  await t.close();
});

// The clock starts 2026-03-10 12:00 in Santiago.
const event = {
  event: 'rock-2026',
  name: 'Rock en el Parque',
  date_event: '2026-03-20',
  date_closing_sales: '2026-03-19 23:59:00',
  date_payment: '2026-03-22',
  service_sale: 150,
  affiliation: [
    ['banda@example.com', 62.5],
    ['sonido@example.com', '27.25'],
  ],
};
const beneficiaryBps = [6250, 2725];
const getEvent = async () =>
  (await t.call(merchant, { method: 'GET', url: `/api/event/${event.event}` })).json();
const advance = async (body: Record<string, number>) =>
  (await t.call(merchant, { method: 'POST', url: '/api/sandbox/clock/advance', body })).json() as {
    processed: Record<string, number>;
  };
const post = (body: Record<string, unknown>) =>
  t.call(merchant, {
    method: 'POST',
    url: '/api/transaction',
    body: {
      email: 'fan@example.com',
      order: 'o-1',
      subject: 'Entrada general',
      amount: 20_000,
      ...body,
    },
  });
const balance = (owner: string, code: string) =>
  readBalance(t.ctx.db, { owner, code, currency: 'CLP' });

/** What a paid sale's beneficiaries get, computed here from the transaction's own amount and fee. */
function beneficiaryParts(grossMinor: bigint, feeMinor: bigint): bigint[] {
  const net = grossMinor - feeMinor;
  const afterService = net > BigInt(event.service_sale) ? net - BigInt(event.service_sale) : 0n;
  const merchantBps = 10_000 - beneficiaryBps.reduce((a, b) => a + b, 0);
  const parts = splitByBasisPoints(afterService, [
    ...beneficiaryBps.map((bps, i) => ({ id: `b${i}`, bps })),
    { id: 'm', bps: merchantBps },
  ]);
  return parts.slice(0, beneficiaryBps.length).map((p) => p.amountMinor);
}

describe("selling an event's tickets through POST /api/transaction", () => {
  const paid: string[] = [];

  it('refuses an unknown event, an event with marketplace, and an event code over 40 characters', async () => {
    expect(
      (await t.call(merchant, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).toBe('success');
    const unknown = await post({ event: 'nope' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ status: 'failed', errors: { event: 'not found' } });
    const other = await t.createAccount('Otra productora');
    const foreign = await t.call(other, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'a@example.com', order: '1', subject: 's', amount: 100, event: event.event },
    });
    expect(foreign.json().errors).toEqual({ event: 'not found' });
    const membership = await createMembership(t, merchant, '50', [
      [await createClient(t, merchant), '50'],
    ]);
    const both = await post({ event: event.event, marketplace: membership.token });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors).toEqual({ event: 'invalid' });
    expect((await post({ event: 'e'.repeat(41) })).json().errors).toEqual({ event: 'too long' });
    expect(
      await t.ctx.db
        .selectFrom('transactions')
        .select('id')
        .where('extension', '=', 'event')
        .execute(),
    ).toEqual([]);
  });

  it('paymentData is the sum of the paid transactions; declined and unpaid ones do not count', async () => {
    for (const amount of [20_000, 35_001, 777]) {
      const created = await createTransaction(t, merchant, { event: event.event, amount });
      expect((await submit(t, created.url, 1, approvedVisa)).statusCode).toBe(200);
      paid.push(created.id);
    }
    const declined = await createTransaction(t, merchant, { event: event.event, amount: 50_000 });
    await submitUntilRejected(t, declined.url, 1, rejectedMastercard);
    await createTransaction(t, merchant, { event: event.event, amount: 60_000 });
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'status', 'amount_minor', 'fee_minor'])
      .where('extension', '=', 'event')
      .execute();
    expect(rows.map((r) => r.status).sort()).toEqual([
      'pending',
      'rejected',
      'success',
      'success',
      'success',
    ]);
    const success = rows.filter((r) => r.status === 'success');
    const gross = success.reduce((s, r) => s + r.amount_minor, 0n);
    const fee = success.reduce((s, r) => s + r.fee_minor!, 0n);
    const affiliate = success.reduce(
      (s, r) => s + beneficiaryParts(r.amount_minor, r.fee_minor!).reduce((a, b) => a + b, 0n),
      0n,
    );
    expect(fee).toBeGreaterThan(0n);
    expect((await getEvent()).paymentData).toEqual({
      count: 3,
      amount_general: Number(gross),
      amount_affiliate: Number(affiliate),
      fee: Number(fee),
      balance: Number(gross - fee - affiliate),
    });
  });

  it("settles the beneficiaries' parts into their payables and only the merchant's part into the wallet", async () => {
    const wallet = await balance(merchant.id, ledgerCodes.walletAvailable);
    expect((await advance({ seconds: 1 })).processed['transaction-settlement']).toBe(3);
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['amount_minor', 'fee_minor'])
      .where('id', 'in', paid)
      .execute();
    const expected = rows.map((r) => beneficiaryParts(r.amount_minor, r.fee_minor!));
    const [a, b] = (await getEvent()).affiliations as Array<{ id: string; status: string }>;
    expect(await balance(a!.id, ledgerCodes.beneficiaryPayable)).toBe(
      expected.reduce((s, p) => s + p[0]!, 0n),
    );
    expect(await balance(b!.id, ledgerCodes.beneficiaryPayable)).toBe(
      expected.reduce((s, p) => s + p[1]!, 0n),
    );
    const paymentData = (await getEvent()).paymentData;
    expect((await balance(merchant.id, ledgerCodes.walletAvailable)) - wallet).toBe(
      BigInt(paymentData.balance),
    );
    expect(await balance(merchant.id, ledgerCodes.pendingSettlement)).toBe(0n);
    expect([a!.status, b!.status]).toEqual(['pending', 'pending']);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('refuses sales after date_closing_sales but records a payment started before it', async () => {
    const late = await createTransaction(t, merchant, { event: event.event, amount: 10_000 });
    // 2026-03-10 12:00 + 9 days + 12 hours is 2026-03-20 00:00, after the close at 2026-03-19 23:59:00.
    await advance({ days: 9, hours: 12 });
    const refused = await post({ event: event.event });
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toEqual({
      status: 'failed',
      type: 'event_sales_closed',
      message_error: `sales for event ${event.event} are closed`,
    });
    expect((await submit(t, late.url, 1, approvedVisa)).statusCode).toBe(200);
    paid.push(late.id);
    expect((await getEvent()).paymentData.count).toBe(4);
    expect((await post({})).statusCode).toBe(200);
  });

  it('pays each beneficiary its percent on date_payment, into the bank clearing, and marks it paid', async () => {
    const [a, b] = (await getEvent()).affiliations as Array<{ id: string }>;
    const bankBefore = await balance(SYSTEM_OWNER, ledgerCodes.bankClearing);
    // 2026-03-20 00:00 + 1 day 23 hours is 2026-03-21 23:00: the late sale settles, payouts wait for 03-22.
    const early = await advance({ days: 1, hours: 23 });
    expect(early.processed['transaction-settlement']).toBe(1);
    expect(early.processed['event-beneficiary-payouts']).toBe(0);
    const payableA = await balance(a!.id, ledgerCodes.beneficiaryPayable);
    const payableB = await balance(b!.id, ledgerCodes.beneficiaryPayable);
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['amount_minor', 'fee_minor'])
      .where('id', 'in', paid)
      .execute();
    const expected = rows.map((r) => beneficiaryParts(r.amount_minor, r.fee_minor!));
    expect(payableA).toBe(expected.reduce((s, p) => s + p[0]!, 0n));
    expect(payableB).toBe(expected.reduce((s, p) => s + p[1]!, 0n));
    expect((await getEvent()).affiliations.map((x: { status: string }) => x.status)).toEqual([
      'pending',
      'pending',
    ]);

    expect((await advance({ hours: 1 })).processed['event-beneficiary-payouts']).toBe(1);
    expect((await getEvent()).affiliations.map((x: { status: string }) => x.status)).toEqual([
      'paid',
      'paid',
    ]);
    expect(await balance(a!.id, ledgerCodes.beneficiaryPayable)).toBe(0n);
    expect(await balance(b!.id, ledgerCodes.beneficiaryPayable)).toBe(0n);
    expect((await balance(SYSTEM_OWNER, ledgerCodes.bankClearing)) - bankBefore).toBe(
      payableA + payableB,
    );
    expect(BigInt((await getEvent()).paymentData.amount_affiliate)).toBe(payableA + payableB);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
