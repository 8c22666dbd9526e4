// Decision 560: a chargeback's debt (decision 530) is paid from the merchant's next settlement before its wallet
// gets the rest, in the settlement's transaction, with a wallet movement the merchant reads; a settlement smaller
// than the debt pays what it can and the rest stays owed. The ledger stays clean throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { balanceOf, paidSale, setFee, settle } from '../refunds/helpers.ts';
import { payout } from '../wallet/wallet-helpers.ts';
import { disputeCall, expectLedgerClean, openDispute } from './helpers.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A sale settled and paid out whole, then a 4,000 chargeback lost on it: the merchant owes 4,000. */
async function owingMerchant(): Promise<TestAccount> {
  const a = await t.createAccount();
  await setFee(t, a, '0');
  const sale = await paidSale(t, a, 10_000, 'first');
  await settle(t, a);
  const paid = await payout(t, a, { amount: 10_000, order: 'all-out' });
  expect(paid.json().status, paid.body).not.toBe('failed');
  const opened = await openDispute(t, a, { transaction_id: sale, amount: 4_000 });
  expect(opened.dispute).toMatchObject({ from_wallet: 0, debt: 4_000 });
  await disputeCall(t, a, opened.dispute.id, 'resolve', { outcome: 'lost' });
  expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
  expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-4_000n);
  await expectLedgerClean(t);
  return a;
}

async function latestMovements(a: TestAccount, count: number) {
  const res = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
  expect(res.statusCode, res.body).toBe(200);
  return (
    res.json().wallet_movements as {
      order: string;
      subject: string;
      income_expense: string;
      amount: string;
      actual_amount: string;
      origin_liquidation: string;
    }[]
  )
    .slice(0, count)
    .map((m) => ({
      order: m.order,
      subject: m.subject,
      income_expense: m.income_expense,
      amount: m.amount,
      actual_amount: m.actual_amount,
      origin_liquidation: m.origin_liquidation,
    }));
}

describe('chargeback debt collected at settlement', () => {
  it('pays the debt first from the next sale that settles and credits the wallet with the rest', async () => {
    const a = await owingMerchant();
    const next = await paidSale(t, a, 10_000, 'second');
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(6_000n);
    // Newest first: the debt's expense after the sale's income, both naming the sale that paid.
    expect(await latestMovements(a, 2)).toEqual([
      {
        order: 'second',
        subject: 'chargeback debt paid',
        income_expense: 'expense',
        amount: '4000',
        actual_amount: '6000',
        origin_liquidation: next,
      },
      expect.objectContaining({
        order: 'second',
        income_expense: 'income',
        amount: '10000',
        actual_amount: '10000',
        origin_liquidation: next,
      }),
    ]);
    await expectLedgerClean(t);

    // Nothing owed any more: the next settlement goes whole to the wallet.
    await paidSale(t, a, 2_000, 'third');
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(8_000n);
    expect((await latestMovements(a, 1))[0]).toMatchObject({ income_expense: 'income' });
    await expectLedgerClean(t);
  });

  it('takes all of a settlement smaller than the debt and leaves the rest owed', async () => {
    const a = await owingMerchant();
    const small = await paidSale(t, a, 1_500, 'small');
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-2_500n);
    expect(await latestMovements(a, 2)).toEqual([
      expect.objectContaining({
        income_expense: 'expense',
        amount: '1500',
        actual_amount: '0',
        origin_liquidation: small,
      }),
      expect.objectContaining({ income_expense: 'income', amount: '1500', actual_amount: '1500' }),
    ]);
    // What the wallet holds now is its own: a payout of anything is refused.
    const refused = await payout(t, a, { amount: 1, order: 'nothing-left' });
    expect(refused.json().status).toBe('failed');
    await expectLedgerClean(t);

    // Several sales settling in one run pay the rest in turn.
    await paidSale(t, a, 2_000, 'p1');
    await paidSale(t, a, 2_000, 'p2');
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(1_500n);
    await expectLedgerClean(t);
  });

  it('collects from an escrow sale when it is released to the wallet, not while it is held', async () => {
    const a = await owingMerchant();
    expect((await accountsSetEscrow.run(t.ctx, { values: {}, positionals: [a.id] })).exitCode).toBe(
      0,
    );
    const held = await paidSale(t, a, 3_000, 'held');
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(3_000n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-4_000n);
    const res = await t.call(a, {
      method: 'POST',
      url: '/api/escrow',
      body: { transactions: [held] },
    });
    expect(res.json().transactions[0].status).toBe('liquidate');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-1_000n);
    expect((await latestMovements(a, 1))[0]).toMatchObject({
      subject: 'chargeback debt paid',
      amount: '3000',
      origin_liquidation: held,
    });
    await expectLedgerClean(t);
  });
});
