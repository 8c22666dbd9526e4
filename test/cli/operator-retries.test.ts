// An operator who lost the terminal runs the command again (decision 1145): each money-moving or ending command
// either does nothing the second time or refuses it naming why, with nothing moved twice and no second audit row.
// (wallet credit --key, refunds record-external, refunds resolve, payouts resolve|return, disputes open --key and a
// file imported again are pinned by their own files; subscriptions retry-removal by the subscriptions' tests.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { paidSale, setFee } from '../modules/refunds/helpers.ts';
import { balance, fund } from '../modules/wallet/wallet-helpers.ts';
import { expectLedgerClean, operatorAuditRows } from '../modules/disputes/helpers.ts';

let t: TestApp;
let a: TestAccount;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-retries-'));
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  await setFee(t, a, '0');
  await fund(t, a, 50_000);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => dispatch(argv, t.ctx);
const operatorRows = () => operatorAuditRows(t, a.id);

describe('run twice', () => {
  it('disputes resolve: the second is refused, nothing moves again', async () => {
    const sale = await paidSale(t, a, 10_000, 'retry-resolve');
    const opened = await run(
      'disputes',
      'open',
      '--transaction',
      sale,
      '--amount',
      '4000',
      '--reason',
      'fraude',
      '--key',
      'CB-RETRY-RESOLVE',
      '--json',
    );
    expect(opened.exitCode, opened.stderr).toBe(0);
    const id = (JSON.parse(opened.stdout) as { id: string }).id;
    const first = await run('disputes', 'resolve', id, '--outcome', 'won');
    expect(first.exitCode, first.stderr).toBe(0);
    const [money, rows] = [await balance(t, a), await operatorRows()];
    const again = await run('disputes', 'resolve', id, '--outcome', 'won', '--json');
    expect(again.exitCode).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(`dispute_closed: dispute ${id} is won: it can no longer change\n`);
    expect([await balance(t, a), await operatorRows()]).toEqual([money, rows]);
    await expectLedgerClean(t);
  });

  it('disputes import of a resolution file again: each line already done, exit 0; another outcome is refused', async () => {
    const sale = await paidSale(t, a, 10_000, 'retry-import');
    const opened = await run(
      'disputes',
      'open',
      '--transaction',
      sale,
      '--amount',
      '3000',
      '--reason',
      'fraude',
      '--key',
      'CB-RETRY-IMPORT',
      '--json',
    );
    const id = (JSON.parse(opened.stdout) as { id: string }).id;
    const file = path.join(dir, 'resolutions.csv');
    fs.writeFileSync(file, `dispute_id,outcome\n${id},lost\n`);
    const first = await run('disputes', 'import', file);
    expect([first.exitCode, first.stdout]).toEqual([
      0,
      `line 2: ${id} lost\n1 recorded, 0 refused\n`,
    ]);
    const [money, rows] = [await balance(t, a), await operatorRows()];
    // A run cut short is followed by the very same file (docs/disputes.md): it used to exit 1, "1 refused".
    const again = await run('disputes', 'import', file);
    expect([again.exitCode, again.stdout, again.stderr]).toEqual([
      0,
      `line 2: already lost ${id}\n0 recorded, 1 already resolved, 0 refused\n`,
      '',
    ]);
    fs.writeFileSync(file, `dispute_id,outcome\n${id},won\n`);
    const other = await run('disputes', 'import', file);
    expect([other.exitCode, other.stdout]).toEqual([
      1,
      `line 2: refused: dispute ${id} is lost: it can no longer change\n0 recorded, 1 refused\n`,
    ]);
    expect([await balance(t, a), await operatorRows()]).toEqual([money, rows]);
    await expectLedgerClean(t);
  });
});
