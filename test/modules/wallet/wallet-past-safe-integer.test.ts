// Decision 720: money owed to a merchant is never refused for the size of its wallet, so a wallet, a settlement batch
// and their sums may pass 2^53 - 1, the largest integer a JSON number keeps exactly in JavaScript. Reached here by
// real paths: the sandbox credit fills a wallet to its credit bound, then a settlement, an escrow release or a
// rejected payout's return takes it past; 91 sales of the largest amount (one paid, 90 copies) settle in one batch. Every read answers
// 200 with the exact digits (read from the raw body: JSON.parse would round them). Before, each answered 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { limits } from '../../../src/limits/index.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { creditWallet } from '../../../src/modules/wallet/wallet-credit.ts';
import { balanceOf, paidSale, setFee, settle } from '../refunds/helpers.ts';
import { conciliationOfDay } from '../conciliation/helpers.ts';
import { fund, payout } from './wallet-helpers.ts';
import { sql } from 'kysely';
import { inTransaction } from '../../../src/platform/db/unit-of-work.ts';
import { postPaidPayment } from '../../support/paid-payment.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const creditMax = limits.walletBalanceMinorMax;

/**
 * Fills the wallet to the credit bound with one operator credit (the function behind `cobro wallet credit` and the
 * sandbox credit; a request takes at most 14 digits, so 91 of them would be needed).
 */
async function fillToCreditBound(a: TestAccount): Promise<void> {
  const rest = creditMax - (await balanceOf(t, a.id, 'wallet_available'));
  const credited = await creditWallet(t.ctx, {
    accountId: a.id,
    currency: 'CLP',
    amountMinor: rest,
    reason: 'to the bound',
    kind: 'adjustment',
  });
  expect(credited?.balanceMinor).toBe(creditMax);
}

async function walletText(a: TestAccount): Promise<string> {
  const res = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
  expect(res.statusCode).toBe(200);
  return res.body;
}

describe('a wallet past 2^53 - 1', () => {
  it('a settlement takes it past the credit bound and GET /api/wallet answers the exact balance', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    await paidSale(t, a, 1_000);
    await fillToCreditBound(a);
    await settle(t, a);
    const expected = creditMax + 1_000n;
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(expected);
    expect(await walletText(a)).toContain(`"amount_available":${expected}`);
    const list = await t.call(a, { method: 'GET', url: '/api/wallet/list', sign: true });
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`"actual_amount":"${expected}"`);
  });

  it('an escrow release takes it past the credit bound and the wallet still answers', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    expect((await accountsSetEscrow.run(t.ctx, { values: {}, positionals: [a.id] })).exitCode).toBe(
      0,
    );
    const id = await paidSale(t, a, 2_000);
    await settle(t, a);
    await fillToCreditBound(a);
    const released = await t.call(a, {
      method: 'POST',
      url: '/api/escrow',
      body: { transactions: [id] },
    });
    expect(released.statusCode).toBe(200);
    expect(await walletText(a)).toContain(`"amount_available":${creditMax + 2_000n}`);
  });

  it("a rejected payout's return takes it past the credit bound and the wallet still answers", async () => {
    const a = await t.createAccount();
    await fund(t, a, 5_000);
    const made = await payout(t, a, { order: 'big-1', amount: 5_000 });
    const payoutId = made.json().identifier_payout as string;
    await fillToCreditBound(a);
    for (const status of ['processing', 'banking_error']) {
      const out = await dispatch(
        ['payouts', 'resolve', payoutId, '--status', status, '--reason', 'cuenta cerrada'],
        t.ctx,
      );
      expect(out.exitCode).toBe(0);
    }
    expect(await walletText(a)).toContain(`"amount_available":${creditMax + 5_000n}`);
  });

  it('the sandbox credit and the operator credit refuse a wallet already past their bound', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    await paidSale(t, a, 1_000);
    await fillToCreditBound(a);
    await settle(t, a);
    const res = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/wallet/credit',
      body: { amount: 1, currency: 'CLP', reason: 'more' },
    });
    expect(res.statusCode).toBe(400);
    const out = await dispatch(
      [
        'wallet',
        'credit',
        '--account',
        a.id,
        '--amount',
        '1',
        '--currency',
        'CLP',
        '--reason',
        'more',
        '--key',
        'T-more',
      ],
      t.ctx,
    );
    expect(out.exitCode).not.toBe(0);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(creditMax + 1_000n);
  });

  it('a batch of 91 sales of the largest amount: the conciliation report answers its exact sum', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sales = 91;
    // One sale paid through the checkout; 90 copies of it (fresh ids and keys) with their nets in pending
    // settlement, as test/modules/transactions/settlement-statement.test.ts seeds a large batch.
    const sale = await paidSale(t, a, Number(limits.amountMinorMax), 'big-0');
    await sql`INSERT INTO transactions SELECT (jsonb_populate_record(t, jsonb_build_object(
        'id', 'trx' || lpad(g::text, 17, '0'), 'order', 'big-' || g, 'payment_key', 'pk' || g,
        'number', 900000000 + g, 'token', 'tk' || g, 'transaction_key', 'tk' || g))).*
      FROM transactions t, generate_series(1, ${sales - 1}) g WHERE t.id = ${sale}`.execute(
      t.ctx.db,
    );
    await inTransaction(t.ctx.db, (tx) =>
      postPaidPayment(tx, {
        accountId: a.id,
        transactionId: 'copies',
        currency: 'CLP',
        grossMinor: limits.amountMinorMax * BigInt(sales - 1),
        feeMinor: 0n,
        at: t.clock.now(),
      }),
    );
    await settle(t, a);
    const sum = limits.amountMinorMax * BigInt(sales);
    expect(sum > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    const res = await conciliationOfDay(t, a, '2026-03-10');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`"amount_available":${sum},"amount_deposit":${sum}`);
    expect(await walletText(a)).toContain(`"amount_available":${sum}`);
    const csv = await t.call(a, {
      method: 'GET',
      url: '/api/conciliation.csv?date_init=2026-03-10&date_end=2026-03-10',
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.body).toContain(`;${sum};${sum};`);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
