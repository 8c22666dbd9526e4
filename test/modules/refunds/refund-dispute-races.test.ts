// Refunds, chargebacks and the settlement run racing over real requests (decision 635). Each sale
// gets three 30 % refunds and one 30 % chargeback at once while the clock advance settles the account: exactly one
// of the four must be refused, and every peso must end where the ledger says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balanceOf, nullify, paidSale, setFee, settle } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('refunds, chargebacks and settlement racing', () => {
  it('keeps every ceiling and every peso', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95');
    const sales: string[] = [];
    for (let i = 0; i < 6; i++) sales.push(await paidSale(t, a, 10_000 + i * 7, `r-${i}`));
    // Half the sales settled before the race, half settled during it.
    await settle(t, a);
    for (let i = 0; i < 6; i++) sales.push(await paidSale(t, a, 20_000 + i * 13, `u-${i}`));
    const amounts = new Map<string, number>();
    for (const [i, id] of sales.entries())
      amounts.set(id, i < 6 ? 10_000 + i * 7 : 20_000 + (i - 6) * 13);

    const calls: Promise<{ kind: string; sale: string; ok: boolean; body: string }>[] = [];
    calls.push(
      t
        .call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { seconds: 1 } })
        .then((r) => ({ kind: 'advance', sale: '', ok: r.statusCode === 200, body: r.body })),
    );
    for (const id of sales) {
      const part = Math.floor(amounts.get(id)! * 0.3);
      for (let k = 0; k < 3; k++)
        calls.push(
          nullify(t, a, { id, amount: part }).then((r) => ({
            kind: 'refund',
            sale: id,
            ok: r.statusCode === 200 && r.json().status === 'success',
            body: r.body,
          })),
        );
      calls.push(
        t
          .call(a, {
            method: 'POST',
            url: '/api/sandbox/disputes',
            body: { transaction_id: id, amount: part, reason: 'fraudulent' },
          })
          .then((r) => ({
            kind: 'dispute',
            sale: id,
            ok: r.statusCode === 200 && r.json().status !== 'failed',
            body: r.body,
          })),
      );
    }
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.body.includes('Internal Server Error'))).toEqual([]);
    expect(results.find((r) => r.kind === 'advance')?.ok).toBe(true);
    for (const id of sales) {
      const mine = results.filter((r) => r.sale === id);
      expect(mine.filter((r) => !r.ok).length, JSON.stringify(mine)).toBe(1);
    }
    // Lose every chargeback, settle what is left.
    const disputes = await t.ctx.db
      .selectFrom('disputes')
      .select(['id', 'amount_minor'])
      .where('account_id', '=', a.id)
      .execute();
    for (const d of disputes) {
      const r = await t.call(a, {
        method: 'POST',
        url: `/api/sandbox/disputes/${d.id}/resolve`,
        body: { outcome: 'lost' },
      });
      expect(r.statusCode, r.body).toBe(200);
    }
    await settle(t, a);

    const refunds = await t.ctx.db
      .selectFrom('nullifications')
      .select(['amount_minor', 'fee_back_minor', 'status'])
      .where('account_id', '=', a.id)
      .execute();
    const fees = await t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'fee_minor', 'refunded_minor', 'amount_minor', 'status'])
      .where('id', 'in', sales)
      .execute();
    const netMinor = fees.reduce(
      (s, r) => s + BigInt(r.amount_minor) - BigInt(r.fee_minor ?? 0n),
      0n,
    );
    const refundMerchant = refunds.reduce(
      (s, r) => s + BigInt(r.amount_minor) - BigInt(r.fee_back_minor),
      0n,
    );
    const disputed = disputes.reduce((s, d) => s + BigInt(d.amount_minor), 0n);
    const merchant =
      (await balanceOf(t, a.id, 'wallet_available')) +
      (await balanceOf(t, a.id, 'dispute_debt')) +
      (await balanceOf(t, a.id, 'dispute_held')) +
      (await balanceOf(t, a.id, 'pending_settlement'));
    expect(merchant).toBe(netMinor - refundMerchant - disputed);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    for (const r of fees) {
      const part = Math.floor(amounts.get(r.id)! * 0.3);
      expect(BigInt(r.refunded_minor)).toBe(BigInt(3 * part));
      expect(r.status).toBe('refunded partial');
    }
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('chargebacks opening while the settlement run collects a debt (real requests only)', () => {
  it('answers every chargeback and settles every sale', async () => {
    const { payout } = await import('../wallet/wallet-helpers.ts');
    const failures: string[] = [];
    for (let round = 0; round < 6; round++) {
      const a = await t.createAccount();
      await setFee(t, a, '0');
      const old: string[] = [];
      for (let i = 0; i < 4; i++) old.push(await paidSale(t, a, 10_000, `old-${i}`));
      await settle(t, a);
      expect((await payout(t, a, { amount: 40_000, order: 'all-out' })).json().status).not.toBe(
        'failed',
      );
      // A first chargeback lost: the merchant owes 1,000.
      const first = await t.call(a, {
        method: 'POST',
        url: '/api/sandbox/disputes',
        body: { transaction_id: old[0], amount: 1_000, reason: 'fraudulent' },
      });
      await t.call(a, {
        method: 'POST',
        url: `/api/sandbox/disputes/${first.json().dispute.id}/resolve`,
        body: { outcome: 'lost' },
      });
      for (let i = 0; i < 20; i++) await paidSale(t, a, 1_000 + i, `new-${i}`);
      const calls = [
        t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { seconds: 1 } }),
        ...old.map((id) =>
          t.call(a, {
            method: 'POST',
            url: '/api/sandbox/disputes',
            body: { transaction_id: id, amount: 500, reason: 'fraudulent' },
          }),
        ),
      ];
      for (const r of await Promise.all(calls))
        if (r.statusCode !== 200) failures.push(`${r.statusCode} ${r.body.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  });
});
