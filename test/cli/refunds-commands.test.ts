// `cobro refunds list|show` over refunds made through POST /api/nullification (issue 11 point 7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';
import { nullify, paidSale, settle } from '../modules/refunds/helpers.ts';

let t: TestApp;
let merchant: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  [merchant, other] = [await t.createAccount('Tienda Uno'), await t.createAccount('Tienda Dos')];
});
afterAll(async () => {
  await t.close();
});

const run = (...argv: string[]) => dispatch(argv, t.ctx);
const refundIds = async (transactionId: string) =>
  (
    await t.ctx.db
      .selectFrom('nullifications')
      .select('id')
      .where('transaction_id', '=', transactionId)
      .orderBy('seq')
      .execute()
  ).map((r) => r.id);

describe('cobro refunds', () => {
  it('lists refunds newest first with filters and a bounded page, and shows one with its money and callbacks', async () => {
    expect(
      (
        await run(
          'accounts',
          'set-urls',
          merchant.id,
          '--nullification-url',
          'http://127.0.0.1:9/refunds',
        )
      ).exitCode,
    ).toBe(0);
    const done = await paidSale(t, merchant, 20_000, 'venta-1');
    await nullify(t, merchant, { id: done, amount: 5_000 });
    await nullify(t, merchant, { id: done, amount: 15_000 });
    const waiting = await paidSale(t, merchant, 10_000, 'venta-2');
    await settle(t, merchant);
    expect((await payout(t, merchant, { amount: 10_000, order: 'empty-it' })).json().status).toBe(
      'success',
    );
    expect(
      (await nullify(t, merchant, { id: waiting, amount: 3_000 })).json().nullify.status_nullify,
    ).toBe('awaiting_funds');
    const foreign = await paidSale(t, other, 2_000);
    await nullify(t, other, { id: foreign, amount: 2_000 });
    const [first, second] = await refundIds(done);
    const [third] = await refundIds(waiting);

    const all = JSON.parse(
      (await run('refunds', 'list', '--account', merchant.id, '--json')).stdout,
    );
    expect(all.total).toBe(3);
    expect(all.refunds.map((r: { id: string }) => r.id)).toEqual([third, second, first]);
    expect(all.refunds[0]).toEqual({
      id: third,
      account_id: merchant.id,
      transaction_id: waiting,
      order: 'venta-2',
      amount: 3_000,
      currency: 'CLP',
      status: 'awaiting_funds',
      unresolved: false,
      type: 'partial',
      fee_back: 0,
      from_pending: 0,
      from_wallet: 0,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      updated_at: expect.any(String),
    });
    expect(
      JSON.parse(
        (await run('refunds', 'list', '--status', 'awaiting_funds', '--json')).stdout,
      ).refunds.map((r: { id: string }) => r.id),
    ).toEqual([third]);
    expect(
      JSON.parse((await run('refunds', 'list', '--transaction', done, '--json')).stdout).total,
    ).toBe(2);
    expect(JSON.parse((await run('refunds', 'list', '--json')).stdout).total).toBe(4);

    const page2 = await run(
      'refunds',
      'list',
      '--account',
      merchant.id,
      '--limit',
      '2',
      '--page',
      '2',
    );
    expect(page2.exitCode).toBe(0);
    expect(page2.stdout).toContain(first);
    expect(page2.stdout).toContain('(3-3 of 3)');
    expect(
      (await run('refunds', 'list', '--account', other.id, '--status', 'complete')).stdout,
    ).toBe('no refunds\n');
    expect((await run('refunds', 'list', '--account', merchant.id, '--page', '9')).stdout).toBe(
      'no refunds on page 9 (3 in all)\n',
    );
    for (const bad of [
      ['--status', 'refunded'],
      ['--limit', '0'],
      ['--page', 'x'],
    ]) {
      const out = await run('refunds', 'list', ...bad);
      expect(out.exitCode, bad.join(' ')).toBe(2);
      expect(out.stderr).toMatch(new RegExp(bad[0]!));
    }

    const shown = JSON.parse((await run('refunds', 'show', second!, '--json')).stdout);
    expect(shown).toMatchObject({
      id: second,
      status: 'reverse_completed',
      unresolved: false,
      type: 'total',
      amount: 15_000,
      order: 'venta-1',
      subject: 'anulación transacción',
      payment: { gateway: 'webpay', payment_type: 'VN' },
      dispatch_attempts: 1,
    });
    expect(shown.refund_code).toEqual(expect.any(String));
    expect(shown.callbacks.map((c: { refund_status: string }) => c.refund_status)).toEqual([
      'complete',
      'reverse_completed',
    ]);
    const text = await run('refunds', 'show', third!);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('status:      awaiting_funds (partial)');
    expect(text.stdout).toMatch(/callbacks:\n {2}msg_\w+ {2}awaiting_funds/);
    expect(
      (
        await run(
          'refunds',
          'show',
          JSON.parse((await run('refunds', 'list', '--account', other.id, '--json')).stdout)
            .refunds[0].id,
        )
      ).stdout,
    ).toContain('none (no nullification URL');
    const missing = await run('refunds', 'show', 'nulnope');
    expect([missing.exitCode, missing.stderr]).toEqual([1, 'no refund with id nulnope\n']);
  });
});
