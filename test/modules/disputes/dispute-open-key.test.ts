// Decision 1190: `cobro disputes open` requires --key. Without one, the same command run twice (a lost terminal, a
// retry at 3 a.m.) opened two disputes on the sale and held the money from the merchant's wallet twice; now it is a
// usage error, exit 2, and nothing opens. A sale may still carry several chargebacks: each has its own key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { balanceOf, paidSale, setFee } from '../refunds/helpers.ts';
import { fund } from '../wallet/wallet-helpers.ts';
import { expectLedgerClean, operatorAuditRows } from './helpers.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  await setFee(t, a, '0');
  await fund(t, a, 20_000);
});
afterAll(async () => {
  await t.close();
});

const open = (sale: string, ...more: string[]) =>
  dispatch(
    ['disputes', 'open', '--transaction', sale, '--amount', '3000', '--reason', 'fraude', ...more],
    t.ctx,
  );
const disputesOf = (sale: string) =>
  t.ctx.db.selectFrom('disputes').selectAll().where('transaction_id', '=', sale).execute();
const operatorRows = () => operatorAuditRows(t, a.id);

describe('cobro disputes open --key (decision 1190)', () => {
  it('run twice without --key: refused both times, nothing opened or held', async () => {
    const sale = await paidSale(t, a, 10_000, 'no-key-twice');
    const [walletMinor, heldMinor, rows] = [
      await balanceOf(t, a.id, 'wallet_available'),
      await balanceOf(t, a.id, 'dispute_held'),
      await operatorRows(),
    ];
    const outs = [await open(sale), await open(sale, '--json')];
    const disputes = await disputesOf(sale);
    const held = (await balanceOf(t, a.id, 'dispute_held')) - heldMinor;
    // Before this decision: both exited 0, two disputes on the sale, 6000 held from the wallet.
    expect({ disputes: disputes.length, heldMinor: held }).toEqual({ disputes: 0, heldMinor: 0n });
    for (const out of outs) {
      expect(out.exitCode).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain('disputes open needs --key KEY');
    }
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(walletMinor);
    expect(await operatorRows()).toBe(rows);
    await expectLedgerClean(t);
  });

  it('run twice with one key holds once; a second chargeback of the sale has its own key', async () => {
    const sale = await paidSale(t, a, 10_000, 'two-chargebacks');
    const heldMinor = await balanceOf(t, a.id, 'dispute_held');
    const first = await open(sale, '--key', 'CB-1190-A');
    expect(first.exitCode, first.stderr).toBe(0);
    const id = /^opened (dsp\w+) /.exec(first.stdout)?.[1];
    const again = await open(sale, '--key', 'CB-1190-A');
    expect([again.exitCode, again.stdout]).toEqual([
      0,
      `already opened ${id} on ${sale} (--key CB-1190-A)\n`,
    ]);
    // The same sale, amount and reason under another case number is another chargeback (decision 710).
    const second = await open(sale, '--key', 'CB-1190-B');
    expect(second.exitCode, second.stderr).toBe(0);
    expect(await disputesOf(sale)).toHaveLength(2);
    expect(await balanceOf(t, a.id, 'dispute_held')).toBe(heldMinor + 6_000n);
    await expectLedgerClean(t);
  });

  it('says in its usage and help that --key is required', async () => {
    const help = await dispatch(['disputes', 'open', '--help'], t.ctx);
    expect(help.stdout).toContain(
      'cobro disputes open --transaction ID --amount N --reason TEXT --key KEY',
    );
    expect(help.stdout).not.toContain('[--key KEY]');
  });
});
