import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { createTransaction } from '../transactions/helpers.ts';
import { payout } from '../wallet/wallet-helpers.ts';
import {
  balanceOf,
  nullify,
  paidSale,
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

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function transaction(account: Parameters<TestApp['call']>[0], id: string) {
  return (await t.call(account, { method: 'GET', url: `/api/transaction/${id}` })).json();
}

describe('POST /api/nullification', () => {
  it("refunds an unsettled card sale in full: the reference's shape, the fee back, nothing left to settle", async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95', '100');
    const id = await paidSale(t, a, 25_000);
    const feesBefore = await balanceOf(t, system, 'fee_refunds');
    const clearingBefore = await balanceOf(t, system, 'refund_clearing');
    const res = await nullify(t, a, { id, amount: 25_000 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['status', 'nullify', 'gateway_response']);
    expect(body.status).toBe('success');
    expect(Object.keys(body.nullify)).toEqual([
      'id',
      'amount',
      'currency',
      'type',
      'status_nullify',
      'payment',
      'created_at',
      'updated_at',
    ]);
    expect(body.nullify).toMatchObject({
      id,
      amount: 25_000,
      currency: 'CLP',
      type: 'total',
      status_nullify: 'reverse_completed',
      payment: { gateway: 'webpay', payment_type: 'VN' },
    });
    expect(body.nullify.created_at).toMatch(isoTimestamp);
    expect(body.nullify.updated_at).toMatch(isoTimestamp);
    expect(Object.keys(body.gateway_response)).toEqual(['status', 'message', 'notify']);
    expect(body.gateway_response.status).toBe('Successfully registered request');
    // The fee (2.95% of 25000 = 738, + 100) comes back whole; the merchant's pending net (24162) pays the rest.
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, system, 'fee_refunds')).toBe(feesBefore - 838n);
    expect(await balanceOf(t, system, 'refund_clearing')).toBe(clearingBefore + 25_000n);
    const got = await transaction(a, id);
    expect(got.status).toBe('refunded');
    expect(got.nullify).toEqual({ status: 'reverse_completed' });
    expect(got.gateway_response.status).toBe('refunded');
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect((await nullify(t, a, { id, amount: 1 })).json()).toMatchObject({
      status: 'failed',
      type: 'already_refunded',
    });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('refunds a settled sale from the wallet in parts, refuses the part that exceeds what is left and writes nothing for it', async () => {
    const a = await t.createAccount();
    const id = await paidSale(t, a, 30_000);
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(30_000n);
    expect((await nullify(t, a, { id, amount: 10_000 })).json().nullify.status_nullify).toBe(
      'reverse_completed',
    );
    expect((await transaction(a, id)).status).toBe('refunded partial');
    expect((await nullify(t, a, { id, amount: '10000' })).json().nullify.amount).toBe(10_000);
    const refused = await nullify(t, a, { id, amount: 15_000 });
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toEqual({
      status: 'failed',
      type: 'refund_exceeds_paid',
      message_error: `transaction ${id} has 10000 CLP left to refund, less than 15000`,
    });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(10_000n);
    const rows = await t.ctx.db
      .selectFrom('nullifications')
      .select('id')
      .where('transaction_id', '=', id)
      .execute();
    expect(rows).toHaveLength(2);
    expect((await transaction(a, id)).status).toBe('refunded partial');
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('kind', '=', 'refund')
      .execute();
    expect(movements.map((m) => [m.income_expense, m.amount_minor])).toEqual([
      ['expense', 10_000n],
      ['expense', 10_000n],
    ]);
    expect((await nullify(t, a, { id, amount: 10_000 })).json().nullify.status_nullify).toBe(
      'reverse_completed',
    );
    expect((await transaction(a, id)).status).toBe('refunded');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it("takes a partial refund from the sale's unsettled net first, gives back the fee in proportion, and settles the rest", async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95');
    const id = await paidSale(t, a, 25_000);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(24_262n);
    expect((await nullify(t, a, { id, amount: 5_000 })).json().status).toBe('success');
    // fee back: 738 * 5000 / 25000 = 147.6, half up 148; the merchant pays 4852 from pending.
    const row = await t.ctx.db
      .selectFrom('nullifications')
      .selectAll()
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    expect([row.fee_back_minor, row.from_pending_minor, row.from_wallet_minor]).toEqual([
      148n,
      4_852n,
      0n,
    ]);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(19_410n);
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(19_410n);
    // The rest in full after settlement: from the wallet, and the fee's remainder makes the whole fee come back.
    expect((await nullify(t, a, { id, amount: 20_000 })).json().nullify.status_nullify).toBe(
      'reverse_completed',
    );
    const all = await t.ctx.db
      .selectFrom('nullifications')
      .select(['fee_back_minor', 'from_wallet_minor'])
      .where('transaction_id', '=', id)
      .orderBy('created_at')
      .execute();
    expect(all.reduce((sum, r) => sum + BigInt(r.fee_back_minor), 0n)).toBe(738n);
    expect(all[1]!.from_wallet_minor).toBe(19_410n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('takes what the wallet holds of a refund it cannot cover (awaiting_funds) and the rest from the next settlement', async () => {
    const a = await t.createAccount();
    const id = await paidSale(t, a, 10_000);
    await settle(t, a);
    expect((await payout(t, a, { amount: 9_000, order: 'drain' })).json().status).toBe('success');
    const body = (await nullify(t, a, { id, amount: 5_000 })).json();
    expect(body.nullify).toMatchObject({
      type: 'partial',
      status_nullify: 'awaiting_funds',
      amount: 5_000,
    });
    expect(body.gateway_response).toEqual({
      status: 'Successfully registered request',
      message:
        'The cancellation will be executed after the amount requested is deducted from your next settlement',
      notify: 'No availability in the wallet',
    });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    const got = await transaction(a, id);
    expect([got.status, got.nullify]).toEqual(['refunded partial', { status: 'awaiting_funds' }]);
    // Nothing arrives: a drain leaves it waiting.
    await settle(t, a);
    expect(
      (await t.call(a, { method: 'GET', url: `/api/nullification/${id}`, sign: true })).json()
        .nullify.status_nullify,
    ).toBe('awaiting_funds');
    // The next sale's settlement pays the 4000 still owed, and the refund goes back to the payer.
    await paidSale(t, a, 8_000, 'next-sale');
    await settle(t, a);
    expect(
      (await t.call(a, { method: 'GET', url: `/api/nullification/${id}`, sign: true })).json()
        .nullify.status_nullify,
    ).toBe('reverse_completed');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(4_000n);
    const row = await t.ctx.db
      .selectFrom('nullifications')
      .selectAll()
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    expect([row.from_pending_minor, row.from_wallet_minor]).toEqual([0n, 5_000n]);
    expect((await transaction(a, id)).nullify).toEqual({ status: 'reverse_completed' });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('gives the money back to the wallet when the processor refuses the refund (reverse_deleted)', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '1');
    const id = await paidSale(t, a, 10_000);
    await settle(t, a);
    await t.ctx.db
      .updateTable('transactions')
      .set({ authorization_code: 'not-one-the-processor-gave' })
      .where('id', '=', id)
      .execute();
    const body = (await nullify(t, a, { id, amount: 4_000 })).json();
    expect(body.nullify.status_nullify).toBe('reverse_deleted');
    expect(body.gateway_response.notify).toBe('unknown authorization');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(9_900n);
    const got = await transaction(a, id);
    expect(got.status).toBe('success');
    expect(got.nullify).toEqual({ status: 'reverse_deleted' });
    expect(
      (
        await t.ctx.db
          .selectFrom('transactions')
          .select('refunded_minor')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).refunded_minor,
    ).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it("refuses what is not a paid sale, and answers bad input, unknown ids and missing signatures in the seed's envelope", async () => {
    const a = await t.createAccount();
    const other = await t.createAccount();
    const pending = await createTransaction(t, a, { amount: 5_000, order: 'p-1' });
    expect((await nullify(t, a, { id: pending.id, amount: 100 })).json()).toMatchObject({
      status: 'failed',
      type: 'transaction_not_paid',
    });
    const id = await paidSale(t, a, 2_000);
    const unknown = await nullify(t, a, { id: 'trxnope', amount: 100 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({
      status: 'failed',
      type: 'Not Found',
      id: 'is not valid',
    });
    expect((await nullify(t, other, { id, amount: 100 })).statusCode).toBe(404);
    const bad = await nullify(t, a, { id, amount: 'abc', subject: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().status).toBe('failed');
    expect((await nullify(t, a, { id, amount: 0 })).statusCode).toBe(400);
    expect((await nullify(t, a, { id, amount: 100, subject: 'x'.repeat(201) })).statusCode).toBe(
      400,
    );
    const unsigned = await t.call(a, {
      method: 'POST',
      url: '/api/nullification',
      body: { id, amount: 100, subject: 's' },
    });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json().message_error).toBe('waiting sign');
    expect((await transaction(a, id)).status).toBe('success');
    expect(
      await t.ctx.db
        .selectFrom('nullifications')
        .select('id')
        .where('account_id', '=', a.id)
        .execute(),
    ).toHaveLength(0);
  });

  it('replays a retried request with the same Idempotency-Key instead of refunding twice', async () => {
    const a = await t.createAccount();
    const id = await paidSale(t, a, 3_000);
    const first = await nullify(t, a, { id, amount: 1_000 }, { 'idempotency-key': 'refund-1' });
    const again = await nullify(t, a, { id, amount: 1_000 }, { 'idempotency-key': 'refund-1' });
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(
      await t.ctx.db
        .selectFrom('nullifications')
        .select('id')
        .where('transaction_id', '=', id)
        .execute(),
    ).toHaveLength(1);
  });
});

describe('GET /api/nullification/{id}', () => {
  it("answers {nullify} by the transaction id (its latest refund) or the refund's own id, signed, and 404 otherwise", async () => {
    const a = await t.createAccount();
    const other = await t.createAccount();
    const id = await paidSale(t, a, 8_000);
    await nullify(t, a, { id, amount: 1_000 });
    await nullify(t, a, { id, amount: 2_000 });
    const byTransaction = await t.call(a, {
      method: 'GET',
      url: `/api/nullification/${id}`,
      sign: true,
    });
    expect(byTransaction.statusCode).toBe(200);
    expect(Object.keys(byTransaction.json())).toEqual(['nullify']);
    expect(byTransaction.json().nullify).toMatchObject({
      id,
      amount: 2_000,
      status_nullify: 'reverse_completed',
    });
    const first = await t.ctx.db
      .selectFrom('nullifications')
      .select('id')
      .where('transaction_id', '=', id)
      .where('amount_minor', '=', 1_000n)
      .executeTakeFirstOrThrow();
    expect(
      (await t.call(a, { method: 'GET', url: `/api/nullification/${first.id}`, sign: true })).json()
        .nullify.amount,
    ).toBe(1_000);
    expect(
      (await t.call(a, { method: 'GET', url: `/api/nullification/${id}` })).json().message_error,
    ).toBe('waiting sign');
    for (const [who, key] of [
      [other, id],
      [a, 'trxunknown'],
      [other, first.id],
    ] as const) {
      const res = await t.call(who, {
        method: 'GET',
        url: `/api/nullification/${key}`,
        sign: true,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
    }
  });
});

describe('50 concurrent partial refunds over real HTTP', () => {
  it('never refund more than was paid', async () => {
    const a = await t.createAccount();
    const id = await paidSale(t, a, 25_000);
    const answers = await concurrentRefunds(t, a, id, 1_000, 50);
    expect(answers.filter((x) => x.http !== 200)).toEqual([]);
    expect(answers.filter((x) => x.status === 'success')).toHaveLength(25);
    expect(answers.filter((x) => x.status !== 'success').map((x) => x.type)).toEqual(
      Array(25).fill('already_refunded'),
    );
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select(['status', 'refunded_minor'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'refunded', refunded_minor: 25_000n });
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
