// Decision 1030: escrow turned off while a refund of a held sale is still at the processor. The refund took the
// whole hold (held_minor 0), so the flag's check let it off; the processor then refused, the money went back to the
// hold (decision 695), and POST /api/escrow answered `not_escrow`: the merchant's money sat in escrow_held with no
// way out. Escrow now stays on while any held sale is not released, whatever it still holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { registerNullification } from '../../../src/modules/refunds/nullify.ts';
import { dispatchNullification } from '../../../src/modules/refunds/dispatch.ts';
import { balanceOf, paidSale, settle } from '../refunds/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const setEscrow = (a: TestAccount, off: boolean) =>
  accountsSetEscrow.run(t.ctx, { values: off ? { off: true } : {}, positionals: [a.id] });

/** The processor refuses what it is asked next for this sale (an authorization code it never gave). */
async function processorRefuses(id: string): Promise<() => Promise<void>> {
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
  return async () => {
    await t.ctx.db
      .updateTable('transactions')
      .set({ authorization_code: code })
      .where('id', '=', id)
      .execute();
  };
}

describe('escrow turned off while a refund of a held sale is at the processor', () => {
  it('is refused until the sale is released, so a refused refund never strands money in escrow_held', async () => {
    const a = await t.createAccount();
    expect((await setEscrow(a, false)).exitCode).toBe(0);
    const id = await paidSale(t, a, 10_000);
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(10_000n);

    // A full refund collected from the hold, not yet answered by the processor.
    const refund = await registerNullification(t.ctx, a.id, { id, amount: 10_000, subject: 'x' });
    if (!refund.ok) throw new Error('refund refused');
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);

    const off = await setEscrow(a, true);
    expect(off.exitCode).not.toBe(0);
    expect(off.stderr).toContain('still holds 1 escrow sale');

    // The processor refuses: the money goes back to the hold, and the merchant can release it.
    const restore = await processorRefuses(id);
    await dispatchNullification(t.ctx, refund.nullificationId);
    await restore();
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(10_000n);
    const released = await t.call(a, {
      method: 'POST',
      url: '/api/escrow',
      body: { transactions: [id] },
    });
    expect(released.json().transactions[0]).toMatchObject({ status: 'liquidate', amount: 10_000 });
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(10_000n);
    expect((await setEscrow(a, true)).exitCode).toBe(0);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
