// Decision 645: `cobro payouts import` moves each payout in its own transaction. Before, the dispatcher ran the whole
// file in one transaction with its audit row, holding every payout and wallet to the end of the file: on PostgreSQL
// it deadlocked with an operator's `payouts resolve` and with a second import of the results in another order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { balance, notificationsOf, payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-race-'));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const run = (...argv: string[]) => dispatch(argv, t.ctx);

async function exportedPayouts(prefix: string, n: number): Promise<[TestAccount, string[]]> {
  const a = await t.createAccount();
  const credit = await run(
    'wallet',
    'credit',
    '--key',
    crypto.randomUUID(),
    '--account',
    a.id,
    '--amount',
    '1000000',
    '--reason',
    'f',
  );
  expect(credit.exitCode).toBe(0);
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      (await payout(t, a, { amount: 1000 + i, order: `${prefix}-${i}` })).json().identifier_payout,
    );
  expect((await run('payouts', 'export', '--bank', '0001')).exitCode).toBe(0);
  return [a, ids];
}

function resultsFile(name: string, ids: readonly string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    ['payout_id,status,reason', ...ids.map((id) => `${id},success,`)].join('\n'),
  );
  return file;
}

const failures = (outs: readonly { exitCode: number; stderr: string }[]) =>
  outs.filter((o) => /failed/.test(o.stderr)).map((o) => o.stderr.trim());

describe('payouts import racing other payout transitions', () => {
  it('an operator resolving some of the payouts does not fail the import', async () => {
    const [a, ids] = await exportedPayouts('ior', 30);
    const before = await balance(t, a);
    const file = resultsFile('results.csv', ids);
    const outs = await Promise.all([
      run('payouts', 'import', file),
      ...ids.map((id) =>
        run('payouts', 'resolve', id, '--status', 'banking_error', '--reason', 'x'),
      ),
    ]);
    expect.soft(failures(outs)).toEqual([]);
    const rows = await t.ctx.db
      .selectFrom('payouts')
      .select(['id', 'status', 'amount_minor'])
      .where('id', 'in', ids)
      .execute();
    expect.soft(rows.filter((r) => r.status === 'processing').map((r) => r.id)).toEqual([]);
    // Money stays consistent either way: each resolved payout moved once.
    const released = rows
      .filter((r) => r.status === 'banking_error')
      .reduce((s, r) => s + Number(r.amount_minor), 0);
    expect(await balance(t, a)).toBe(before + released);
    const notes = (await notificationsOf(t, a.id)).filter((n) => n.event_type === 'payout.result');
    expect(notes).toHaveLength(rows.filter((r) => r.status !== 'processing').length);
    expect((await run('ledger', 'verify')).exitCode).toBe(0);
  });

  it('two imports of the same results at once, listed in two orders, both apply', async () => {
    const [, ids] = await exportedPayouts('two', 30);
    const [one, two] = await Promise.all([
      run('payouts', 'import', resultsFile('asc.csv', ids)),
      run('payouts', 'import', resultsFile('desc.csv', [...ids].reverse())),
    ]);
    expect(failures([one!, two!])).toEqual([]);
  });
});
