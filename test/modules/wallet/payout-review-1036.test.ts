// Decision 1036, the adversarial review of wallet payouts: real HTTP requests (a listening server, so each is its
// own connection and, on PostgreSQL, its own pooled transaction) race over one balance, payouts and withdrawals,
// amounts written as numbers and as strings, with and without an Idempotency-Key, and chargeback openings taking
// the same wallet. None may overdraw; a payout past the balance gets the seed's failed answer; a wallet whose
// chargebacks left a debt pays nothing out until a credit has paid the debt first (docs/disputes.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { balanceOf, paidSale, setFee, settle } from '../refunds/helpers.ts';
import { expectLedgerClean } from '../disputes/helpers.ts';
import { balance, expectMovementChain, fund, payout, payoutBody } from './wallet-helpers.ts';

let t: TestApp;
let address: string;
beforeAll(async () => {
  t = await startTestApp();
  address = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
});

type Answer = readonly [number, Record<string, unknown>];

/** One POST over HTTP, signed as the seed asks when `signed`, keyed when `key` is given. */
async function post(
  a: TestAccount,
  path: string,
  body: Record<string, unknown>,
  options: { signed?: boolean; key?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `Bearer ${a.publicToken}`,
  };
  if (options.signed !== false) headers.sign = computeSign(a.privateToken, path, body);
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const res = await fetch(`${address}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return [res.status, (await res.json()) as Record<string, unknown>];
}

const shortOf = (availableMinor: number, requestedMinor: number) => ({
  status: 'failed',
  type: 'insufficient_funds',
  message_error: `available balance ${availableMinor} CLP does not cover ${requestedMinor}`,
});

describe('payouts over one balance, raced over HTTP (decision 1036)', () => {
  it('pays out exactly the balance among payouts and withdrawals, numbers and strings, keyed or not', async () => {
    const a = await t.createAccount();
    await fund(t, a, 5_000);
    // 24 requests of 1000 each for a balance of 5000: every third a withdrawal, half the amounts strings.
    const requests = Array.from({ length: 24 }, (_, i) => {
      const amount = i % 2 === 0 ? 1_000 : '1000';
      const key = i % 3 === 1 ? `race-${i}` : undefined;
      return i % 3 === 0
        ? post(
            a,
            '/api/wallet/withdraw',
            { subject: 'retiro', currency: 'CLP', order: `w${i}`, amount },
            { key },
          )
        : post(a, '/api/wallet/payout', payoutBody({ order: `p${i}`, amount }), { key });
    });
    const answers = await Promise.all(requests);
    const paid = answers.filter(([, b]) => b.status === 'success' || b.status === 'Success');
    const refused = answers.filter(([, b]) => b.status === 'failed');
    expect(answers.every(([code]) => code === 200)).toBe(true);
    expect(paid).toHaveLength(5);
    expect(refused).toHaveLength(19);
    for (const [, body] of refused) expect(body).toMatchObject(shortOf(0, 1_000));
    expect(await balance(t, a)).toBe(0);
    expect(await expectMovementChain(t, a.id)).toBe(0);
    await expectLedgerClean(t);
  });

  it('refuses a payout one unit past the balance with the seed answer, and pays the balance exactly', async () => {
    const a = await t.createAccount();
    await fund(t, a, 5_000);
    for (const amount of [5_001, '5001', 99_999_999_999_999]) {
      const res = await payout(t, a, { amount, order: `over-${String(amount)}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        ...shortOf(5_000, Number(amount)),
        identifier_wallet: '',
        identifier_payout: '',
      });
    }
    // Not integers of minor units: refused before any funds check.
    for (const amount of ['5000.0', '1e3', '0x3E8', ' 1000', 1_000.5, true])
      expect((await payout(t, a, { amount, order: 'odd' })).json()).toMatchObject({
        status: 'failed',
        errors: { amount: 'invalid' },
      });
    expect((await payout(t, a, { amount: '5000', order: 'all' })).json().status).toBe('success');
    expect(await balance(t, a)).toBe(0);
  });

  it('a keyed payout retried with its amount written the other way replays, reserving once', async () => {
    const a = await t.createAccount();
    await fund(t, a, 3_000);
    const first = await post(a, '/api/wallet/payout', payoutBody({ order: 'k1', amount: '1000' }), {
      key: 'replay-1',
    });
    const again = await post(a, '/api/wallet/payout', payoutBody({ order: 'k1', amount: 1_000 }), {
      key: 'replay-1',
    });
    expect(first[1].status).toBe('success');
    expect(again).toEqual(first);
    expect(await balance(t, a)).toBe(2_000);
  });

  it('races chargeback openings against payouts on one wallet: what the wallet lacks becomes debt, never a negative balance', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 10_000, 'race-sale');
    await settle(t, a);
    expect(await balance(t, a)).toBe(10_000);
    const payouts = Array.from({ length: 10 }, (_, i) =>
      post(a, '/api/wallet/payout', payoutBody({ order: `d${i}`, amount: i % 2 ? '1000' : 1_000 })),
    );
    // The sandbox's acquirer opens the chargebacks (token only, as its route asks).
    const disputes = Array.from({ length: 4 }, () =>
      post(
        a,
        '/api/sandbox/disputes',
        { transaction_id: sale, amount: 1_500, reason: 'fraudulent' },
        { signed: false },
      ),
    );
    const [paidAnswers, disputeAnswers] = await Promise.all([
      Promise.all(payouts),
      Promise.all(disputes),
    ]);
    const paidMinor = 1_000 * paidAnswers.filter(([, b]) => b.status === 'success').length;
    for (const [code, body] of disputeAnswers) expect(code, JSON.stringify(body)).toBe(200);
    const opened = disputeAnswers.map(
      ([, b]) => b.dispute as { from_wallet: number; debt: number },
    );
    const fromWalletMinor = opened.reduce((s, d) => s + Number(d.from_wallet), 0);
    const debtMinor = opened.reduce((s, d) => s + Number(d.debt), 0);
    expect(fromWalletMinor + debtMinor).toBe(6_000);
    const availableMinor = await balance(t, a);
    expect(availableMinor).toBeGreaterThanOrEqual(0);
    expect(availableMinor).toBe(10_000 - paidMinor - fromWalletMinor);
    // A debt is only ever what the wallet lacked: with money left, no opening borrowed.
    if (availableMinor > 0) expect(debtMinor).toBe(0);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(BigInt(-debtMinor));
    expect(await expectMovementChain(t, a.id)).toBe(availableMinor);
    await expectLedgerClean(t);
  });

  it('a wallet with chargeback debt pays nothing out until a credit has paid the debt first', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 10_000, 'debt-sale');
    await settle(t, a);
    // All of it out (the sandbox keeps 10000 pending), then a chargeback of 3000 is all debt.
    expect((await payout(t, a, { amount: 10_000, order: 'all-out' })).json().status).toBe(
      'success',
    );
    const [, opened] = await post(
      a,
      '/api/sandbox/disputes',
      { transaction_id: sale, amount: 3_000, reason: 'fraudulent' },
      { signed: false },
    );
    expect(opened.dispute).toMatchObject({ from_wallet: 0, debt: 3_000 });
    expect((await payout(t, a, { amount: 1_000, order: 'owing' })).json()).toMatchObject(
      shortOf(0, 1_000),
    );
    const withdraw = await post(a, '/api/wallet/withdraw', {
      subject: 'retiro',
      currency: 'CLP',
      order: 'owing-w',
      amount: '1000',
    });
    expect(withdraw[1]).toMatchObject(shortOf(0, 1_000));
    // 5000 of test funds: 3000 pay the debt, 2000 can go out, not a unit more.
    await fund(t, a, 5_000);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balance(t, a)).toBe(2_000);
    expect((await payout(t, a, { amount: 2_001, order: 'past' })).json()).toMatchObject(
      shortOf(2_000, 2_001),
    );
    expect((await payout(t, a, { amount: '2000', order: 'rest' })).json().status).toBe('success');
    expect(await balance(t, a)).toBe(0);
    await expectLedgerClean(t);
  });
});
