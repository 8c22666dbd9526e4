import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balance, fund, payout, payoutBody } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('payout order uniqueness (supplement §4.4)', () => {
  it('replays the first answer for the same order and body, moving money once', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const first = await payout(t, a, { amount: 1234, order: 'o-1' });
    // Same body as a client might resend it: amount as a string, keys in another order.
    const again = await t.call(a, {
      method: 'POST',
      url: '/api/wallet/payout',
      sign: true,
      body: {
        ...Object.fromEntries(Object.entries(payoutBody({ order: 'o-1' })).reverse()),
        amount: '1234',
      },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await balance(t, a)).toBe(10_000 - 1234);
    const rows = await t.ctx.db
      .selectFrom('payouts')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses the same order with another body (HTTP 200 duplicate_order) and writes nothing', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    await payout(t, a, { amount: 1234, order: 'o-2' });
    const other = await payout(t, a, { amount: 4321, order: 'o-2' });
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual({
      status: 'failed',
      type: 'duplicate_order',
      message_error: expect.stringContaining('o-2'),
      identifier_wallet: '',
      identifier_payout: '',
    });
    expect(await balance(t, a)).toBe(10_000 - 1234);
  });

  it('lets two accounts use the same order, and retries an order refused for funds', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await fund(t, a, 5000);
    expect((await payout(t, a, { amount: 1234, order: 'shared' })).json().status).toBe('success');
    expect((await payout(t, b, { amount: 1234, order: 'shared' })).json().type).toBe(
      'insufficient_funds',
    );
    await fund(t, b, 5000);
    expect((await payout(t, b, { amount: 1234, order: 'shared' })).json().status).toBe('success');
  });

  it('replays concurrent requests with one order as one payout', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => payout(t, a, { amount: 700, order: 'burst' })),
    );
    const bodies = answers.map((r) => r.json());
    expect(new Set(bodies.map((b) => b.identifier_payout)).size).toBe(1);
    expect(bodies.every((b) => b.status === 'success')).toBe(true);
    expect(await balance(t, a)).toBe(10_000 - 700);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('100 concurrent payouts against a balance that covers 40', () => {
  it('accepts exactly 40, fails the rest, and leaves the ledger clean', async () => {
    const a = await t.createAccount();
    const amount = 1234;
    await fund(t, a, amount * 40);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => payout(t, a, { amount, order: `c-${i}` })),
    );
    const bodies = answers.map((r) => {
      expect(r.statusCode).toBe(200);
      return r.json();
    });
    expect(bodies.filter((b) => b.status === 'success')).toHaveLength(40);
    const failed = bodies.filter((b) => b.status === 'failed');
    expect(failed).toHaveLength(60);
    expect(failed.every((b) => b.type === 'insufficient_funds')).toBe(true);
    expect(await balance(t, a)).toBe(0);
    const rows = await t.ctx.db
      .selectFrom('payouts')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    expect(rows).toHaveLength(40);
    const verify = await dispatch(['ledger', 'verify'], t.ctx);
    expect(verify.exitCode).toBe(0);
    expect(verify.stdout).toMatch(/^ledger clean/);
  });
});
