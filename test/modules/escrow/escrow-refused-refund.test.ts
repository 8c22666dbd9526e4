// Decision 695: a refund of a sale still held in escrow that the processor refuses gives its money back to the hold.
// Before, it credited the wallet: the held money could be paid out without POST /api/escrow, and the conciliation
// report counted it neither as held nor as paid out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { balanceOf, nullify, paidSale, settle } from '../refunds/helpers.ts';
import { conciliationOfDay } from '../conciliation/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function refusedRefund(account: TestAccount, id: string, amount: number) {
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
  const res = await nullify(t, account, { id, amount });
  await t.ctx.db
    .updateTable('transactions')
    .set({ authorization_code: code })
    .where('id', '=', id)
    .execute();
  return res;
}

describe('a refused refund of a sale still held in escrow', () => {
  it('returns the money to the hold, not to the wallet, and the report still shows it held', async () => {
    const a = await t.createAccount();
    expect((await accountsSetEscrow.run(t.ctx, { values: {}, positionals: [a.id] })).exitCode).toBe(
      0,
    );
    const id = await paidSale(t, a, 10_000);
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(10_000n);

    const refused = await refusedRefund(a, id, 4_000);
    expect(refused.json().nullify.status_nullify).toBe('reverse_deleted');

    // Not released: the whole sale is still the hold's, none of it the wallet's.
    const wallet = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
    expect({
      walletAvailable: await balanceOf(t, a.id, 'wallet_available'),
      escrowHeld: await balanceOf(t, a.id, 'escrow_held'),
      amountAvailable: wallet.json().amount_available,
    }).toEqual({ walletAvailable: 0n, escrowHeld: 10_000n, amountAvailable: 0 });

    const report = await conciliationOfDay(t, a, '2026-03-10');
    expect(report.json().conciliation[0]).toMatchObject({
      status: 'deteined',
      amount_available: 10_000,
      amount_deposit: 0,
    });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('of a sale not yet settled returns it to the pending settlement, which then pays the whole net', async () => {
    const a = await t.createAccount();
    const id = await paidSale(t, a, 10_000);
    const { amount_minor: gross, fee_minor: fee } = await t.ctx.db
      .selectFrom('transactions')
      .select(['amount_minor', 'fee_minor'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const netMinor = BigInt(gross) - BigInt(fee ?? 0);
    const refused = await refusedRefund(a, id, 4_000);
    expect(refused.json().nullify.status_nullify).toBe('reverse_deleted');
    expect({
      pending: await balanceOf(t, a.id, 'pending_settlement'),
      wallet: await balanceOf(t, a.id, 'wallet_available'),
    }).toEqual({ pending: netMinor, wallet: 0n });
    await settle(t, a);
    expect({
      pending: await balanceOf(t, a.id, 'pending_settlement'),
      wallet: await balanceOf(t, a.id, 'wallet_available'),
    }).toEqual({ pending: 0n, wallet: netMinor });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
