// `cobro refunds record-external` (decision 1025): a refund the merchant made at the acquirer, recorded by the
// operator through the real command path (dispatch, its audit row): the same money, sale status and callbacks as a
// refund through POST /api/nullification, nothing sent to the processor, idempotent on its reference, refused with
// nothing changed for a bad amount, an amount over what is left, an unknown or unpaid sale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';
import {
  balanceOf,
  nullify,
  paidSale,
  setFee,
  settle,
  system,
} from '../modules/refunds/helpers.ts';
import { createTransaction } from '../modules/transactions/helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Tienda Portal');
  await setFee(t, merchant, '3.0');
  const urls = await run(
    'accounts',
    'set-urls',
    merchant.id,
    '--nullification-url',
    'http://127.0.0.1:9/refunds',
  );
  expect(urls.exitCode, urls.stderr).toBe(0);
});
afterAll(async () => {
  await t.close();
});

const run = (...argv: string[]) => dispatch(argv, t.ctx);
const record = (...argv: string[]) => run('refunds', 'record-external', ...argv);
const refundsOf = (transactionId: string) =>
  t.ctx.db
    .selectFrom('nullifications')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('seq')
    .execute();
const saleOf = (id: string) =>
  t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'refunded_minor', 'nullify_status'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const auditRows = () =>
  t.ctx.db
    .selectFrom('audit_log')
    .select(['chain', 'action', 'target'])
    .where('action', 'like', 'cobro refunds record-external%')
    .orderBy('seq')
    .execute();
const money = async () => ({
  wallet: await balanceOf(t, merchant.id, 'wallet_available'),
  pending: await balanceOf(t, merchant.id, 'pending_settlement'),
  clearing: await balanceOf(t, system, 'refund_clearing'),
  feeRefunds: await balanceOf(t, system, 'fee_refunds'),
});

describe('cobro refunds record-external', () => {
  it('records a refund made at the acquirer as a refund through the API records it, nothing sent', async () => {
    const viaApi = await paidSale(t, merchant, 20_000, 'api-1');
    const outside = await paidSale(t, merchant, 20_000, 'portal-1');
    const before = await money();
    expect((await nullify(t, merchant, { id: viaApi, amount: 7_000 })).statusCode).toBe(200);
    const afterApi = await money();

    const out = await record(outside, '--amount', '7000', '--reference', 'TBK portal 10-03');
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toMatch(
      new RegExp(
        `^recorded refund nul\\w+ of 7000 CLP for ${outside} made outside Cobro: reverse_completed, nothing sent to the processor\\n$`,
      ),
    );
    const afterOutside = await money();
    // The same ledger movement as the API's refund of the same amount of the same kind of sale.
    for (const key of ['wallet', 'pending', 'clearing', 'feeRefunds'] as const)
      expect(afterOutside[key] - afterApi[key], key).toBe(afterApi[key] - before[key]);

    const [api] = await refundsOf(viaApi);
    const [rec] = await refundsOf(outside);
    expect(rec).toMatchObject({
      status: 'reverse_completed',
      refund_code: 'external:TBK portal 10-03',
      dispatch_attempts: 0,
      dispatch_due_at: null,
      channel: 'processor',
      subject: 'devolución hecha fuera de Cobro (TBK portal 10-03)',
    });
    for (const part of [
      'fee_back_minor',
      'from_pending_minor',
      'from_wallet_minor',
      'type',
    ] as const)
      expect(rec![part], part).toEqual(api![part]);
    expect(await saleOf(outside)).toEqual({
      status: 'refunded partial',
      refunded_minor: 7_000n,
      nullify_status: 'reverse_completed',
    });
    // The merchant reads it as any refund, and its callbacks went into the outbox with it.
    const got = await t.call(merchant, {
      method: 'GET',
      url: `/api/nullification/${outside}`,
      sign: true,
    });
    expect(got.json().nullify).toMatchObject({
      amount: 7_000,
      status_nullify: 'reverse_completed',
    });
    const shown = JSON.parse((await run('refunds', 'show', rec!.id, '--json')).stdout);
    expect(shown.callbacks.map((c: { refund_status: string }) => c.refund_status)).toEqual([
      'complete',
      'reverse_completed',
    ]);
    expect(await auditRows()).toEqual([
      { chain: merchant.id, action: 'cobro refunds record-external', target: rec!.id },
    ]);

    // Idempotent on its reference: recorded once, no second audit row.
    const again = await record(outside, '--amount', '7000', '--reference', 'TBK portal 10-03');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain(`already recorded: refund ${rec!.id}`);
    const json = await record(
      outside,
      '--amount',
      '7000',
      '--reference',
      'TBK portal 10-03',
      '--json',
    );
    expect(JSON.parse(json.stdout)).toEqual({
      id: rec!.id,
      transaction_id: outside,
      amount: '7000',
      status: 'reverse_completed',
      already: true,
    });
    const otherAmount = await record(outside, '--amount', '500', '--reference', 'TBK portal 10-03');
    expect(otherAmount.exitCode).toBe(1);
    expect(otherAmount.stderr).toContain(`already recorded refund ${rec!.id} of 7000 CLP`);
    expect(await refundsOf(outside)).toHaveLength(1);
    expect(await auditRows()).toHaveLength(1);
    expect(await money()).toEqual(afterOutside);

    // The merchant refunds the rest through the API: what was given back outside counts.
    const rest = await nullify(t, merchant, { id: outside, amount: 13_001 });
    expect(rest.json().type).toBe('refund_exceeds_paid');
    expect(
      (await nullify(t, merchant, { id: outside, amount: 13_000 })).json().nullify.status_nullify,
    ).toBe('reverse_completed');
    expect((await saleOf(outside)).status).toBe('refunded');
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('refuses a bad amount, an amount over what is left, an unknown or unpaid sale: exit non-zero, nothing changed', async () => {
    const sale = await paidSale(t, merchant, 10_000, 'portal-2');
    const unpaid = await createTransaction(t, merchant, { amount: 5_000, order: 'portal-unpaid' });
    const before = await money();
    const cases: Array<[readonly string[], number, RegExp]> = [
      [[sale, '--amount', '0', '--reference', 'r'], 2, /--amount must be a positive integer/],
      [[sale, '--amount', '12.5', '--reference', 'r'], 2, /--amount must be a positive integer/],
      [[sale, '--amount', '1e3', '--reference', 'r'], 2, /--amount must be a positive integer/],
      [[sale, '--amount', '100', '--reference', ' '], 2, /--reference must have 1 to 100/],
      [[sale, '--amount', '100', '--reference', 'x'.repeat(101)], 2, /--reference must have/],
      [[sale, '--amount', '100'], 2, /^usage: cobro refunds record-external/],
      [
        [sale, '--amount', '10001', '--reference', 'r'],
        1,
        /^refund_exceeds_paid: .*; nothing was recorded/,
      ],
      [
        ['trx0000000000000000', '--amount', '100', '--reference', 'r'],
        1,
        /no transaction with id trx0/,
      ],
      [[unpaid.id, '--amount', '100', '--reference', 'r'], 1, /^transaction_not_paid: /],
    ];
    for (const [argv, code, message] of cases) {
      const out = await record(...argv);
      expect(out.exitCode, argv.join(' ')).toBe(code);
      expect(out.stderr, argv.join(' ')).toMatch(message);
    }
    expect(await refundsOf(sale)).toEqual([]);
    expect(await refundsOf(unpaid.id)).toEqual([]);
    expect((await saleOf(sale)).status).toBe('success');
    expect(await money()).toEqual(before);
    const whole = await record(sale, '--amount', '10000', '--reference', 'whole');
    expect(whole.exitCode, whole.stderr).toBe(0);
    expect((await saleOf(sale)).status).toBe('refunded');
    const more = await record(sale, '--amount', '1', '--reference', 'more');
    expect(more.exitCode).toBe(1);
    expect(more.stderr).toMatch(/^already_refunded: /);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('a refund the wallet cannot cover waits for funds, then ends given back without being sent', async () => {
    const sale = await paidSale(t, merchant, 10_000, 'portal-3');
    await settle(t, merchant);
    const wallet = await balanceOf(t, merchant.id, 'wallet_available');
    expect(
      (await payout(t, merchant, { amount: Number(wallet), order: 'empty-3' })).json().status,
    ).toBe('success');
    const out = await record(sale, '--amount', '4000', '--reference', 'TBK-3');
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toContain('awaiting_funds');
    // Another sale settles: the wallet pays the refund, which ends without a dispatch.
    await paidSale(t, merchant, 20_000, 'portal-3b');
    await settle(t, merchant);
    const [rec] = await refundsOf(sale);
    expect(rec).toMatchObject({
      status: 'reverse_completed',
      dispatch_attempts: 0,
      dispatch_due_at: null,
      refund_code: 'external:TBK-3',
    });
    const shown = JSON.parse((await run('refunds', 'show', rec!.id, '--json')).stdout);
    expect(shown.callbacks.map((c: { refund_status: string }) => c.refund_status)).toEqual([
      'awaiting_funds',
      'complete',
      'reverse_completed',
    ]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
