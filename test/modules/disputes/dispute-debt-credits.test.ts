// Decision 905: money coming back to the available wallet by a path other than a sale pays the chargeback debt
// (decision 530) first, as a settlement does (decision 560): a payout or withdrawal the bank or the operator gives
// back. Before, the merchant who owed could pay the returned money out again. The ledger stays clean throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { balanceOf, paidSale, setFee, settle } from '../refunds/helpers.ts';
import { payout } from '../wallet/wallet-helpers.ts';
import { disputeCall, expectLedgerClean, openDispute } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A settled 10,000 sale whose money is all reserved by pending payouts, then a chargeback lost on it. */
async function owingWhileReserved(
  disputedMinor: number,
  reserve: (a: TestAccount) => Promise<readonly string[]>,
) {
  const a = await t.createAccount();
  await setFee(t, a, '0');
  const sale = await paidSale(t, a, 10_000, 'sale');
  await settle(t, a);
  const ids = await reserve(a);
  expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
  const opened = await openDispute(t, a, { transaction_id: sale, amount: disputedMinor });
  expect(opened.dispute).toMatchObject({ from_wallet: 0, debt: disputedMinor });
  await disputeCall(t, a, opened.dispute.id, 'resolve', { outcome: 'lost' });
  expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(BigInt(-disputedMinor));
  await expectLedgerClean(t);
  return { a, ids };
}

/** A payout the sandbox keeps pending (an amount outside reference §13.4's table). */
async function pendingPayout(a: TestAccount, amount: number, order: string): Promise<string> {
  const res = await payout(t, a, { amount, order });
  expect(res.json().status, res.body).toBe('success');
  return res.json().identifier_payout as string;
}

async function pendingWithdrawal(a: TestAccount, amount: number, order: string): Promise<string> {
  const res = await t.call(a, {
    method: 'POST',
    url: '/api/wallet/withdraw',
    body: { subject: 'withdraw', currency: 'CLP', order, amount },
    sign: true,
  });
  expect(res.json().status, res.body).toBe('Success');
  const row = await t.ctx.db
    .selectFrom('payouts')
    .select('id')
    .where('account_id', '=', a.id)
    .where('order', '=', order)
    .executeTakeFirstOrThrow();
  return row.id;
}

async function resolveByOperator(id: string, status: 'banking_error' | 'fraud_prevention') {
  expect((await dispatch(['payouts', 'resolve', id, '--status', status], t.ctx)).exitCode).toBe(0);
}

async function latestMovements(a: TestAccount, count: number) {
  const res = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().wallet_movements as Record<string, unknown>[]).slice(0, count);
}

describe('chargeback debt collected from money given back to the wallet', () => {
  it('pays the debt first from a rejected payout and leaves the rest available', async () => {
    const { a, ids } = await owingWhileReserved(4_000, async (m) => [
      await pendingPayout(m, 10_000, 'all-out'),
    ]);
    await resolveByOperator(ids[0]!, 'banking_error');
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(6_000n);
    // Newest first: the debt's expense after the payout's reversal, both naming the payout's order.
    expect(await latestMovements(a, 2)).toEqual([
      expect.objectContaining({
        order: 'all-out',
        subject: 'chargeback debt paid',
        income_expense: 'expense',
        amount: '4000',
        actual_amount: '6000',
        origin_liquidation: null,
      }),
      expect.objectContaining({
        order: 'all-out',
        income_expense: 'income',
        amount: '10000',
        actual_amount: '10000',
      }),
    ]);
    // Only what the debt left can go out again.
    expect((await payout(t, a, { amount: 6_001, order: 'too-much' })).json().status).toBe('failed');
    await expectLedgerClean(t);
  });

  it('takes all of a rejected withdrawal smaller than the debt and leaves the rest owed', async () => {
    const { a, ids } = await owingWhileReserved(8_000, async (m) => [
      await pendingWithdrawal(m, 4_000, 'w-1'),
      await pendingPayout(m, 6_000, 'p-2'),
    ]);
    await resolveByOperator(ids[0]!, 'fraud_prevention');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-4_000n);
    expect((await latestMovements(a, 1))[0]).toMatchObject({
      subject: 'chargeback debt paid',
      amount: '4000',
      actual_amount: '0',
    });
    await expectLedgerClean(t);
    await resolveByOperator(ids[1]!, 'banking_error');
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(2_000n);
    await expectLedgerClean(t);
  });
  // Decision 980: a payout paid by hand in the sandbox and returned by `cobro payouts return` pays the debt too.
  it('pays the debt first from a payout paid by hand and returned by the operator', async () => {
    const { a, ids } = await owingWhileReserved(4_000, async (m) => [
      await pendingPayout(m, 10_000, 'hand-paid'),
    ]);
    expect(
      (await dispatch(['payouts', 'resolve', ids[0]!, '--status', 'success'], t.ctx)).exitCode,
    ).toBe(0);
    const back = await dispatch(
      ['payouts', 'return', ids[0]!, '--reason', 'Cuenta cerrada'],
      t.ctx,
    );
    expect(back.exitCode, back.stderr).toBe(0);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(6_000n);
    expect((await latestMovements(a, 1))[0]).toMatchObject({
      order: 'hand-paid',
      subject: 'chargeback debt paid',
      amount: '4000',
    });
    await expectLedgerClean(t);
  });

  // Decisions 905, 980: a credit the operator chooses to make is not money coming back; it is credited whole and
  // the debt stays owed, for the next settlement or money given back (or `--pay-debt`, decision 997).
  it('leaves the debt owed after an operator credit', async () => {
    const { a } = await owingWhileReserved(4_000, async (m) => [
      await pendingPayout(m, 10_000, 'kept'),
    ]);
    const credit = await dispatch(
      [
        'wallet',
        'credit',
        '--account',
        a.id,
        '--amount',
        '3000',
        '--reason',
        'ajuste',
        '--key',
        'T-1',
      ],
      t.ctx,
    );
    expect(credit.exitCode, credit.stderr).toBe(0);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(3_000n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-4_000n);
    await expectLedgerClean(t);
  });

  // Decision 1016: the sandbox's top-up stands for the money a merchant receives in production (its sales'
  // settlements), which pays the debt first; the answer's amount_available is what the debt left.
  it('pays the debt first from a sandbox credit, answered with what is left available', async () => {
    const { a } = await owingWhileReserved(4_000, async (m) => [
      await pendingPayout(m, 10_000, 'sandbox-kept'),
    ]);
    const credit = (amount: number) =>
      t.call(a, {
        method: 'POST',
        url: '/api/sandbox/wallet/credit',
        body: { amount, currency: 'CLP', reason: 'test funds' },
      });
    const small = await credit(3_000);
    expect(small.statusCode, small.body).toBe(200);
    expect(small.json()).toMatchObject({ status: 'success', amount_available: 0, currency: 'CLP' });
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-1_000n);
    const rest = await credit(5_000);
    expect(rest.json()).toMatchObject({ status: 'success', amount_available: 4_000 });
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(4_000n);
    const [paid, credited] = await latestMovements(a, 2);
    expect(credited).toMatchObject({
      id: rest.json().identifier_wallet,
      subject: 'test funds',
      income_expense: 'income',
      amount: '5000',
      actual_amount: '5000',
    });
    expect(paid).toMatchObject({
      order: credited!.order,
      subject: 'chargeback debt paid',
      income_expense: 'expense',
      amount: '1000',
      actual_amount: '4000',
    });
    // Nothing owed: a credit is credited whole, as before.
    expect((await credit(500)).json()).toMatchObject({ amount_available: 4_500 });
    await expectLedgerClean(t);
  });

  // Decision 997: the operator sees what the account owes, and may choose that a credit pays it first.
  it('shows the debt in accounts show, text and JSON', async () => {
    const { a } = await owingWhileReserved(4_000, async (m) => [
      await pendingPayout(m, 10_000, 'shown'),
    ]);
    const text = await dispatch(['accounts', 'show', a.id], t.ctx);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toContain('chargeback debt: 4000 CLP');
    const json = await dispatch(['accounts', 'show', a.id, '--json'], t.ctx);
    expect(JSON.parse(json.stdout).chargeback_debt).toEqual({ CLP: '4000' });
    const clean = await t.createAccount();
    const none = await dispatch(['accounts', 'show', clean.id, '--json'], t.ctx);
    expect(JSON.parse(none.stdout).chargeback_debt).toEqual({});
    expect((await dispatch(['accounts', 'show', clean.id], t.ctx)).stdout).toContain(
      'chargeback debt: none',
    );
  });

  it('pays the debt first from an operator credit with --pay-debt, audited once', async () => {
    const { a } = await owingWhileReserved(4_000, async (m) => [
      await pendingPayout(m, 10_000, 'pay-debt'),
    ]);
    const small = await dispatch(
      [
        'wallet',
        'credit',
        '--account',
        a.id,
        '--amount',
        '3000',
        '--reason',
        'devuelto',
        '--key',
        'T-small',
        '--pay-debt',
      ],
      t.ctx,
    );
    expect(small.exitCode, small.stderr).toBe(0);
    expect(small.stdout).toContain('chargeback debt paid 3000, available 0');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-1_000n);
    const rest = await dispatch(
      [
        'wallet',
        'credit',
        '--account',
        a.id,
        '--amount',
        '5000',
        '--reason',
        'devuelto',
        '--key',
        'T-rest',
        '--pay-debt',
        '--json',
      ],
      t.ctx,
    );
    expect(rest.exitCode, rest.stderr).toBe(0);
    expect(JSON.parse(rest.stdout)).toMatchObject({ amount_available: '4000', debt_paid: '1000' });
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(4_000n);
    expect((await latestMovements(a, 2))[0]).toMatchObject({
      subject: 'chargeback debt paid',
      income_expense: 'expense',
      amount: '1000',
      actual_amount: '4000',
    });
    const audited = await t.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .where('chain', '=', a.id)
      .where('action', '=', 'cobro wallet credit')
      .execute();
    expect(audited).toHaveLength(2);
    await expectLedgerClean(t);
  });
});
