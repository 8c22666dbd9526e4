// Refunds of split sales (issue 11 point 3, decision 116): a marketplace payment's refund takes each client's share
// back in proportion, to the peso, from the client's payable while it holds it and from the merchant's wallet once
// the share went to the client's bank; an event sale's refund shrinks paymentData and the beneficiaries' parts.
// Every case ends with the parts refunded exactly and `cobro ledger verify` clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { takeInProportion } from '../../../src/platform/money/split.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { payByCard } from '../transactions/helpers.ts';
import { fund } from '../wallet/wallet-helpers.ts';
import {
  balanceOf,
  eventBody,
  nullify,
  setFee,
  settle,
  system,
  concurrentRefunds,
} from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function advance(account: TestAccount, body: Record<string, number>) {
  expect(
    (await t.call(account, { method: 'POST', url: '/api/sandbox/clock/advance', body })).statusCode,
  ).toBe(200);
}

async function paid(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const { created, res } = await payByCard(t, account, body);
  expect(res.statusCode).toBe(200);
  return created.id as string;
}

/** A merchant at 2.95% + 10 with a membership: merchant 20%, clients 45.5% and 34.5%. */
async function marketplace() {
  const a = await t.createAccount();
  await setFee(t, a, '2.95', '10');
  const clients = [await createClient(t, a), await createClient(t, a)] as const;
  const { token } = await createMembership(t, a, '20', [
    [clients[0], '45.5'],
    [clients[1], '34.5'],
  ]);
  return { a, clients, token };
}

async function division(id: string) {
  const payment = await t.ctx.db
    .selectFrom('ma_payments')
    .selectAll()
    .where('transaction_id', '=', id)
    .executeTakeFirstOrThrow();
  const shares = await t.ctx.db
    .selectFrom('ma_payment_shares')
    .selectAll()
    .where('transaction_id', '=', id)
    .orderBy('bps', 'desc')
    .execute();
  return { payment, shares };
}

async function nullification(id: string) {
  return t.ctx.db
    .selectFrom('nullifications')
    .selectAll()
    .where('transaction_id', '=', id)
    .orderBy('seq', 'desc')
    .executeTakeFirstOrThrow();
}

describe('refunding a marketplace payment', () => {
  it('in full before settlement: every share shrinks to zero, nothing reaches a client, the fee comes back', async () => {
    const { a, clients, token } = await marketplace();
    const id = await paid(a, { amount: 10_000, order: 'o-m1', marketplace: token });
    const res = await nullify(t, a, { id, amount: 10_000 });
    expect(res.json().nullify).toMatchObject({
      type: 'total',
      status_nullify: 'reverse_completed',
    });
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    await settle(t, a);
    const { payment, shares } = await division(id);
    expect(payment.refunded_minor).toBe(payment.net_minor);
    expect(payment.merchant_refunded_minor).toBe(payment.merchant_minor);
    expect(shares.map((s) => s.refunded_minor)).toEqual(shares.map((s) => s.amount_minor));
    for (const c of clients) expect(await balanceOf(t, c, 'client_payable')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('in parts across settlement and deposit: payables give back what they hold, the wallet pays for deposited shares', async () => {
    const { a, clients, token } = await marketplace();
    const id = await paid(a, { amount: 33_333, order: 'o-m2', marketplace: token });
    const refundClearing = await balanceOf(t, system, 'refund_clearing');
    // Part 1, before settlement: from pending settlement; the shares shrink in proportion.
    const first = await nullify(t, a, { id, amount: 5_000 });
    expect(first.json().nullify.status_nullify).toBe('reverse_completed');
    const before = await division(id);
    const net1 = 5_000n - (await nullification(id)).fee_back_minor;
    const original = [before.payment.merchant_minor, ...before.shares.map((s) => s.amount_minor)];
    const expected1 = takeInProportion(net1, original);
    expect([
      before.payment.merchant_refunded_minor,
      ...before.shares.map((s) => s.refunded_minor),
    ]).toEqual(expected1);

    // Settled: each client's payable holds its share less part 1; the merchant's wallet its part less part 1.
    await settle(t, a);
    const left1 = original.map((o, i) => o - expected1[i]!);
    expect(await balanceOf(t, clients[0], 'client_payable')).toBe(left1[1]);
    expect(await balanceOf(t, clients[1], 'client_payable')).toBe(left1[2]);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(left1[0]);

    // Part 2, settled and liquidated: the clients' parts come from their payables, the merchant's from its wallet.
    await nullify(t, a, { id, amount: 10_000 });
    const n2 = await nullification(id);
    const expected2 = takeInProportion(10_000n - n2.fee_back_minor, left1);
    expect(n2.from_split_minor).toBe(expected2[1]! + expected2[2]!);
    expect(n2.from_wallet_minor).toBe(expected2[0]);
    const left2 = left1.map((l, i) => l - expected2[i]!);
    expect(await balanceOf(t, clients[0], 'client_payable')).toBe(left2[1]);
    expect(await balanceOf(t, clients[1], 'client_payable')).toBe(left2[2]);

    // Deposited: the clients keep what reached their banks; the rest of the refund comes from the merchant's wallet.
    const bank = await balanceOf(t, system, 'bank_clearing');
    await advance(a, { days: 2 });
    expect((await balanceOf(t, system, 'bank_clearing')) - bank).toBe(left2[1]! + left2[2]!);
    await fund(t, a, 30_000);
    const wallet = await balanceOf(t, a.id, 'wallet_available');
    const last = await nullify(t, a, { id, amount: 18_333 });
    expect(last.json().nullify.status_nullify).toBe('reverse_completed');
    const n3 = await nullification(id);
    expect(n3.from_split_minor).toBe(0n);
    expect(wallet - (await balanceOf(t, a.id, 'wallet_available'))).toBe(
      left2.reduce((s, l) => s + l, 0n),
    );
    for (const c of clients) expect(await balanceOf(t, c, 'client_payable')).toBe(0n);

    // To the peso: every part refunded exactly, the payer got the whole gross, the service its whole fee back.
    const after = await division(id);
    expect(after.payment.merchant_refunded_minor).toBe(after.payment.merchant_minor);
    expect(after.shares.map((s) => s.refunded_minor)).toEqual(
      after.shares.map((s) => s.amount_minor),
    );
    expect((await balanceOf(t, system, 'refund_clearing')) - refundClearing).toBe(33_333n);
    const got = (await t.call(a, { method: 'GET', url: `/api/transaction/${id}` })).json();
    expect(got.status).toBe('refunded');
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('a split refund the processor refuses', () => {
  it("returns the collected money to the merchant's wallet; a later full refund pays what the parts no longer hold", async () => {
    const { a, clients, token } = await marketplace();
    const id = await paid(a, { amount: 10_000, order: 'o-d', marketplace: token });
    await settle(t, a);
    const { authorization_code: code } = await t.ctx.db
      .selectFrom('transactions')
      .select('authorization_code')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await t.ctx.db
      .updateTable('transactions')
      .set({ authorization_code: 'not-one-the-processor-gave' })
      .where('id', '=', id)
      .execute();
    expect((await nullify(t, a, { id, amount: 6_000 })).json().nullify.status_nullify).toBe(
      'reverse_deleted',
    );
    await t.ctx.db
      .updateTable('transactions')
      .set({ authorization_code: code })
      .where('id', '=', id)
      .execute();
    await fund(t, a, 20_000);
    const res = await nullify(t, a, { id, amount: 10_000 });
    expect(res.statusCode).toBe(200);
    expect(res.json().nullify.status_nullify).toBe('reverse_completed');
    const { payment, shares } = await division(id);
    expect(payment.refunded_minor).toBe(payment.net_minor);
    expect(shares.map((s) => s.refunded_minor)).toEqual(shares.map((s) => s.amount_minor));
    for (const c of clients) expect(await balanceOf(t, c, 'client_payable')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('refunding an event sale', () => {
  it("shrinks paymentData and the beneficiaries' parts, before and after settlement, to the peso", async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95', '10');
    const event = eventBody('rock-2026', 'Rock en el Parque');
    expect(
      (await t.call(a, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).not.toBe('failed');
    const getEvent = async () =>
      (await t.call(a, { method: 'GET', url: `/api/event/${event.event}` })).json();
    const id = await paid(a, { amount: 20_000, order: 'o-e1', event: event.event });
    const other = await paid(a, { amount: 10_000, order: 'o-e2', event: event.event });
    const whole = (await getEvent()).paymentData;

    await nullify(t, a, { id, amount: 8_000 });
    const n1 = await nullification(id);
    const afterFirst = (await getEvent()).paymentData;
    expect(afterFirst.count).toBe(2);
    expect(afterFirst.amount_general).toBe(whole.amount_general - 8_000);
    expect(afterFirst.fee).toBe(whole.fee - Number(n1.fee_back_minor));
    expect(afterFirst.amount_general).toBe(
      afterFirst.fee + afterFirst.amount_affiliate + afterFirst.balance,
    );

    await settle(t, a);
    const [b1, b2] = (await getEvent()).affiliations as Array<{ id: string }>;
    const parts = await t.ctx.db
      .selectFrom('event_sale_shares')
      .selectAll()
      .where('transaction_id', 'in', [id, other])
      .execute();
    const owed = (b: string) =>
      parts
        .filter((p) => p.beneficiary_id === b)
        .reduce((s, p) => s + p.amount_minor - p.refunded_minor, 0n);
    expect(await balanceOf(t, b1!.id, 'beneficiary_payable')).toBe(owed(b1!.id));
    expect(await balanceOf(t, b2!.id, 'beneficiary_payable')).toBe(owed(b2!.id));

    // The rest, settled and not yet paid out: the beneficiaries' parts come back from their payables.
    await nullify(t, a, { id, amount: 12_000 });
    expect((await nullification(id)).from_split_minor).toBeGreaterThan(0n);
    const sale = await t.ctx.db
      .selectFrom('event_sales')
      .selectAll()
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    expect([
      sale.refunded_minor,
      sale.fee_refunded_minor,
      sale.net_refunded_minor,
      sale.affiliate_refunded_minor,
    ]).toEqual([sale.gross_minor, sale.fee_minor, sale.net_minor, sale.affiliate_minor]);
    const otherSale = await t.ctx.db
      .selectFrom('event_sales')
      .selectAll()
      .where('transaction_id', '=', other)
      .executeTakeFirstOrThrow();
    const data = (await getEvent()).paymentData;
    expect(data).toMatchObject({
      count: 2,
      amount_general: 10_000,
      fee: Number(otherSale.fee_minor),
      amount_affiliate: Number(otherSale.affiliate_minor),
      balance: Number(otherSale.net_minor - otherSale.affiliate_minor),
    });
    const [p1, p2] = [
      await balanceOf(t, b1!.id, 'beneficiary_payable'),
      await balanceOf(t, b2!.id, 'beneficiary_payable'),
    ];
    expect(p1 + p2).toBe(otherSale.affiliate_minor);
    // On date_payment the beneficiaries get only the sale that was not refunded.
    const bank = await balanceOf(t, system, 'bank_clearing');
    await advance(a, { days: 12 });
    expect((await balanceOf(t, system, 'bank_clearing')) - bank).toBe(otherSale.affiliate_minor);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('50 concurrent partial refunds of a settled marketplace payment over real HTTP', () => {
  it('never refund more than was paid, nor take a client payable below zero', async () => {
    const { a, clients, token } = await marketplace();
    const id = await paid(a, { amount: 25_000, order: 'o-c', marketplace: token });
    await settle(t, a);
    const answers = await concurrentRefunds(t, a, id, 1_000, 50);
    expect(answers.filter((x) => x.http !== 200)).toEqual([]);
    expect(answers.filter((x) => x.status === 'success')).toHaveLength(25);
    expect(answers.filter((x) => x.status !== 'success').map((x) => x.type)).toEqual(
      Array(25).fill('already_refunded'),
    );
    const { payment, shares } = await division(id);
    expect(payment.merchant_refunded_minor).toBe(payment.merchant_minor);
    expect(shares.map((s) => s.refunded_minor)).toEqual(shares.map((s) => s.amount_minor));
    for (const c of clients) expect(await balanceOf(t, c, 'client_payable')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
