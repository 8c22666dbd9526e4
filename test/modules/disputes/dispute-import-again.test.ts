// Decision 710: each opening line of `cobro disputes import` is keyed by the file's hash and its line number. The
// same file imported again answers "already opened dsp..." for each line and moves nothing (no hold, no audit row);
// two identical lines of one file stay two chargebacks; the same line in another file is another chargeback.
// `cobro disputes open --key K` run again finds the dispute its key opened, and refuses the key for another one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { balanceOf, paidSale, setFee } from '../refunds/helpers.ts';
import { fund } from '../wallet/wallet-helpers.ts';
import { expectLedgerClean, operatorAuditRows } from './helpers.ts';

let t: TestApp;
let a: TestAccount;
let sale: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'disputes-again-'));
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  await setFee(t, a, '0');
  sale = await paidSale(t, a, 10_000, 'import-again');
  await fund(t, a, 5_000);
});
afterAll(async () => {
  await t.close();
});

const disputesOf = () =>
  t.ctx.db.selectFrom('disputes').selectAll().where('account_id', '=', a.id).execute();
const operatorRows = () => operatorAuditRows(t, a.id);

function report(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('cobro disputes import, the same file again', () => {
  it('opens two identical lines twice, and nothing when the file comes again', async () => {
    const file = report(
      'a.csv',
      `transaction_id,amount,reason\n${sale},1000,fraude\n${sale},1000,fraude\n`,
    );
    const first = await dispatch(['disputes', 'import', file], t.ctx);
    expect(first.exitCode, first.stdout).toBe(0);
    expect(first.stdout).toMatch(
      /^line 2: dsp\w+ opened\nline 3: dsp\w+ opened\n2 recorded, 0 refused\n$/,
    );
    const opened = await disputesOf();
    expect(opened).toHaveLength(2);
    const walletMinor = await balanceOf(t, a.id, 'wallet_available');
    const rows = await operatorRows();

    const again = await dispatch(['disputes', 'import', file], t.ctx);
    expect(again.exitCode, again.stdout).toBe(0);
    const ids = [...again.stdout.matchAll(/^line \d: already opened (dsp\w+)$/gm)].map((m) => m[1]);
    expect(ids.sort()).toEqual(opened.map((d) => d.id).sort());
    expect(again.stdout).toContain('0 recorded, 2 already opened, 0 refused');
    expect(await disputesOf()).toHaveLength(2);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(walletMinor);
    expect(await operatorRows()).toBe(rows);
    await expectLedgerClean(t);
  });

  it('opens the same line of another file', async () => {
    const file = report('b.csv', `transaction_id,amount,reason\n${sale},1000,fraude\n\n`);
    const other = await dispatch(['disputes', 'import', file], t.ctx);
    expect(other.stdout).toMatch(/^line 2: dsp\w+ opened\n1 recorded, 0 refused\n$/);
    expect(await disputesOf()).toHaveLength(3);
  });

  it('opens once with --key, run twice, and refuses the key for another chargeback', async () => {
    const open = (amount: string) =>
      dispatch(
        [
          'disputes',
          'open',
          '--transaction',
          sale,
          '--amount',
          amount,
          '--reason',
          'fraude',
        ].concat(['--key', 'CB-0114']),
        t.ctx,
      );
    const first = await open('500');
    expect(first.exitCode, first.stderr).toBe(0);
    const id = /^opened (dsp\w+) /.exec(first.stdout)?.[1];
    const walletMinor = await balanceOf(t, a.id, 'wallet_available');
    const rows = await operatorRows();
    const again = await open('500');
    expect(again.stdout).toBe(`already opened ${id} on ${sale} (--key CB-0114)\n`);
    const other = await open('700');
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toContain(
      `--key CB-0114 opened ${id} on ${sale} for 500: use another key`,
    );
    expect(await disputesOf()).toHaveLength(4);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(walletMinor);
    expect(await operatorRows()).toBe(rows);
  });
});
