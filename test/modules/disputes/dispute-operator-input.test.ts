// Review of the operator's dispute commands (decision 885): a line of `cobro disputes import` whose text the database
// cannot store is refused by its line and the rest go on; `cobro disputes open --reason` longer than the table takes
// is refused before the database; two `cobro disputes open --key K` at once on two sales of one merchant open one
// chargeback and refuse the other with the key's message, never a database error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { balanceOf, paidSale, setFee } from '../refunds/helpers.ts';
import { expectLedgerClean } from './helpers.ts';

let t: TestApp;
let a: TestAccount;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'disputes-input-'));
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  await setFee(t, a, '0');
});
afterAll(async () => {
  await t.close();
});

const disputesOf = () =>
  t.ctx.db.selectFrom('disputes').selectAll().where('account_id', '=', a.id).execute();

describe('the operator dispute commands on odd input', () => {
  it('refuses an import line with a NUL in its reason by its line and opens the rest', async () => {
    const sale = await paidSale(t, a, 10_000, 'nul-line');
    const file = path.join(dir, 'nul.csv');
    fs.writeFileSync(
      file,
      `transaction_id,amount,reason\n${sale},100,fra\u0000ude\n${sale},200,fraude\n`,
    );
    const out = await dispatch(['disputes', 'import', file], t.ctx);
    expect(out.exitCode, out.stderr).toBe(1);
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(
      /^line 2: refused: reason has a character the database cannot store\nline 3: dsp\w+ opened\n1 recorded, 1 refused\n$/,
    );
    const opened = await disputesOf();
    expect(opened.map((d) => Number(d.amount_minor))).toEqual([200]);
    await expectLedgerClean(t);
  });

  it('refuses a reason longer than 200 characters before the database', async () => {
    const sale = await paidSale(t, a, 10_000, 'long-reason');
    const before = (await disputesOf()).length;
    const out = await dispatch(
      [
        'disputes',
        'open',
        '--transaction',
        sale,
        '--amount',
        '100',
        '--reason',
        'x'.repeat(201),
        '--key',
        'CB-LONG',
      ],
      t.ctx,
    );
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain('--reason must have 1 to 200 characters');
    expect(out.stderr).not.toContain('constraint');
    expect(await disputesOf()).toHaveLength(before);
  });

  it('refuses a blank --key or one with a line break, as the API refuses such an Idempotency-Key (decision 1155)', async () => {
    const sale = await paidSale(t, a, 10_000, 'blank-key');
    const before = (await disputesOf()).length;
    for (const key of [' ', '\t', 'CB-1\nCB-2']) {
      const out = await dispatch(
        [
          'disputes',
          'open',
          '--transaction',
          sale,
          '--amount',
          '100',
          '--reason',
          'fraude',
          '--key',
          key,
        ],
        t.ctx,
      );
      expect(out.exitCode, JSON.stringify(key)).toBe(2);
      expect(out.stderr).toContain('--key must have 1 to 100 characters');
    }
    expect(await disputesOf()).toHaveLength(before);
  });

  it('opens one chargeback for one --key given at once on two sales', async () => {
    const sales = [await paidSale(t, a, 10_000, 'key-a'), await paidSale(t, a, 10_000, 'key-b')];
    const before = (await disputesOf()).length;
    const heldMinor = await balanceOf(t, a.id, 'dispute_held');
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      const key = `CB-RACE-${round}`;
      const outs = await Promise.all(
        sales.map((sale) =>
          dispatch(
            [
              'disputes',
              'open',
              '--transaction',
              sale,
              '--amount',
              '10',
              '--reason',
              'fraude',
            ].concat(['--key', key]),
            t.ctx,
          ),
        ),
      );
      const refused = outs.filter((o) => o.exitCode !== 0);
      expect(refused, JSON.stringify(outs)).toHaveLength(1);
      expect(refused[0]?.stderr, JSON.stringify(outs)).toMatch(
        new RegExp(`--key ${key} opened dsp\\w+ on trx\\w+ for 10: use another key`),
      );
    }
    expect(await disputesOf()).toHaveLength(before + rounds);
    expect(await balanceOf(t, a.id, 'dispute_held')).toBe(heldMinor + BigInt(rounds * 10));
    await expectLedgerClean(t);
  });
});
