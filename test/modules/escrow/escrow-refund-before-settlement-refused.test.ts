// Decision 1030: an escrow account's sale refunded whole before it settled settles nothing, so no hold was recorded;
// when the processor then refused the refund (after the settlement), decision 695 found no hold for the sale and
// gave its net to the wallet: the sale's money reached the wallet without POST /api/escrow. Settlement now records
// a hold for every sale of an escrow account, an empty one too, so the refusal gives the money back to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { registerNullification } from '../../../src/modules/refunds/nullify.ts';
import { dispatchNullification } from '../../../src/modules/refunds/dispatch.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { balanceOf, paidSale } from '../refunds/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('a refused refund of an escrow sale refunded whole before it settled', () => {
  it('gives the money back to a hold the merchant releases, not to the wallet', async () => {
    const a = await t.createAccount();
    expect((await accountsSetEscrow.run(t.ctx, { values: {}, positionals: [a.id] })).exitCode).toBe(
      0,
    );
    const id = await paidSale(t, a, 10_000);
    const refund = await registerNullification(t.ctx, a.id, { id, amount: 10_000, subject: 'x' });
    if (!refund.ok) throw new Error('refund refused');
    // The settlement alone (the clock's due work would dispatch the refund first).
    t.clock.advanceMs(1000);
    expect(await runSettlements(t.ctx, { accountId: a.id, limit: 10 })).toBe(1);
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);

    // The processor refuses (an authorization code it never gave).
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
    await dispatchNullification(t.ctx, refund.nullificationId);
    await t.ctx.db
      .updateTable('transactions')
      .set({ authorization_code: code })
      .where('id', '=', id)
      .execute();
    const { status } = await t.ctx.db
      .selectFrom('nullifications')
      .select('status')
      .where('id', '=', refund.nullificationId)
      .executeTakeFirstOrThrow();
    expect(status).toBe('reverse_deleted');

    expect({
      held: await balanceOf(t, a.id, 'escrow_held'),
      wallet: await balanceOf(t, a.id, 'wallet_available'),
    }).toEqual({ held: 10_000n, wallet: 0n });
    const released = await t.call(a, {
      method: 'POST',
      url: '/api/escrow',
      body: { transactions: [id] },
    });
    expect(released.json().transactions[0]).toMatchObject({ status: 'liquidate', amount: 10_000 });
    expect({
      held: await balanceOf(t, a.id, 'escrow_held'),
      wallet: await balanceOf(t, a.id, 'wallet_available'),
    }).toEqual({ held: 0n, wallet: 10_000n });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
