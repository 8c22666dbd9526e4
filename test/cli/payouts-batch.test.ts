// Production payouts through bank files (issue 15 point 4): `cobro payouts export` writes the pending payouts as a
// payroll CSV and moves them to processing, once each even when exports race; `cobro payouts import` applies the
// bank's results with the ledger effects and callbacks of the sandbox's resolution. Balances checked to the peso.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { withAbsoluteFile } from '../../src/cli/ops-socket.ts';
import { payoutsImport } from '../../src/cli/commands/payouts-batch.ts';
import { ledgerCodes, SYSTEM_OWNER } from '../../src/platform/ledger/ledger.ts';
import { payrollColumns } from '../../src/modules/wallet/payout-batch-csv.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { balance, notificationsOf, payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-payroll-'));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => dispatch(argv, t.ctx);
const bankClearing = () =>
  t.ctx.ledger.balance(t.ctx.db, {
    owner: SYSTEM_OWNER,
    code: ledgerCodes.bankClearing,
    currency: 'CLP',
  });
let files = 0;
function file(text: string): string {
  const p = path.join(dir, `results-${++files}.csv`);
  fs.writeFileSync(p, text);
  return p;
}
const rowsOf = (csv: string) =>
  parse(csv, { columns: true, bom: true }) as Record<string, string>[];

async function fundedAccount(amount: number): Promise<TestAccount> {
  const a = await t.createAccount();
  expect(
    (
      await run(
        'wallet',
        'credit',
        '--key',
        crypto.randomUUID(),
        '--account',
        a.id,
        '--amount',
        String(amount),
        '--reason',
        'funding',
      )
    ).exitCode,
  ).toBe(0);
  return a;
}

async function pendingPayout(
  a: TestAccount,
  amount: number,
  order: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await payout(t, a, { amount, order, ...extra });
  expect(res.statusCode).toBe(200);
  return res.json().identifier_payout as string;
}

const statusOf = async (a: TestAccount, id: string) =>
  (await t.call(a, { method: 'GET', url: `/api/payoutv3/${id}`, sign: true })).json()
    .payout as Record<string, unknown>;

/** Exports every pending payout now (earlier tests' leftovers included) and returns the batch's rows. */
async function exportAll(): Promise<Record<string, string>[]> {
  const out = await run('payouts', 'export', '--bank', '0001', '--format', 'csv');
  expect(out.exitCode).toBe(0);
  return out.stdout === '' ? [] : rowsOf(out.stdout);
}

describe('cobro payouts export / import', () => {
  it('exports a payroll batch, imports the bank results, and settles every peso once', async () => {
    await exportAll();
    const a = await fundedAccount(100_000);
    const b = await fundedAccount(50_000);
    const a1 = await pendingPayout(a, 10_000, 'nom-a1');
    const a2 = await pendingPayout(a, 2_500, 'nom-a2', {
      accountbank_name: '=HYPERLINK("x")',
      subject: 'Pago, "marzo"',
    });
    const b1 = await pendingPayout(b, 7_000, 'nom-b1', {
      accountbank_sbif: '0012',
      accountbank_num: '123456',
    });
    expect(await balance(t, a)).toBe(87_500);
    expect(await balance(t, b)).toBe(43_000);
    const clearingBefore = await bankClearing();

    const out = await run('payouts', 'export', '--bank', '0001');
    expect(out.exitCode).toBe(0);
    expect(out.stdout.split('\r\n')[0]).toBe(payrollColumns.join(','));
    const rows = rowsOf(out.stdout);
    expect(rows.map((r) => r.payout_id).sort()).toEqual([a1, a2, b1].sort());
    const batchId = rows[0]!.batch_id!;
    expect(batchId).toMatch(/^pbt[0-9a-f]{17}$/);
    expect(out.stderr).toContain(
      `batch ${batchId} for bank 0001: 3 payouts, 19500 CLP, now processing`,
    );
    const row = (id: string) => rows.find((r) => r.payout_id === id);
    expect(row(a2)).toMatchObject({
      batch_id: batchId,
      kind: 'payout',
      order: 'nom-a2',
      amount: '2500',
      currency: 'CLP',
      beneficiary_name: '\'=HYPERLINK("x")',
      beneficiary_rut: '111111111',
      beneficiary_bank: '0001',
      account_type: '1',
      account_number: '12312312312',
      email: 'johndoe@example.com',
      subject: 'Pago, "marzo"',
      status: '',
      reason: '',
    });
    expect(row(a2)!.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(row(b1)).toMatchObject({
      beneficiary_bank: '0012',
      account_number: '123456',
      amount: '7000',
    });
    for (const [acc, id] of [
      [a, a1],
      [a, a2],
      [b, b1],
    ] as const)
      expect((await statusOf(acc, id)).status).toBe('processing');
    // Exported, not paid: the money stays reserved, nothing reached the bank account, no callback yet.
    expect(await balance(t, a)).toBe(87_500);
    expect(await bankClearing()).toBe(clearingBefore);
    expect(await notificationsOf(t, a.id)).toHaveLength(0);

    // Each payout goes out once; the batch's file can be written again without changing anything.
    const again = await run('payouts', 'export', '--bank', '0001');
    expect(again).toMatchObject({ exitCode: 0, stdout: '' });
    expect(again.stderr).toContain('no pending payouts');
    const rewritten = await run('payouts', 'export', '--batch', batchId);
    expect(rewritten.stdout).toBe(out.stdout);
    expect(rewritten.stderr).toContain('written again; no payout changed');

    // The bank's results: the exported file with status and reason filled in, as a spreadsheet would save it.
    const results = out.stdout
      .replace(/\r\n$/, '')
      .split('\r\n')
      .map((line, i) => {
        if (i === 0) return line;
        const id = line.split(',')[1];
        return line.replace(
          /,,$/,
          id === a2 ? ',banking_error,"Cuenta cerrada, RUT no coincide"' : ',success,',
        );
      })
      .join('\r\n');
    const imported = await run('payouts', 'import', file(`\ufeff${results}`));
    expect(imported).toMatchObject({ exitCode: 0, stderr: '' });
    expect(imported.stdout).toBe(
      '2 success, 1 banking_error, 0 already resolved, 0 left processing\n',
    );

    expect(await statusOf(a, a1)).toMatchObject({ status: 'success', reason_rejection: '' });
    expect(await statusOf(a, a2)).toMatchObject({
      status: 'banking_error',
      reason_rejection: 'Cuenta cerrada, RUT no coincide',
    });
    expect(await statusOf(b, b1)).toMatchObject({ status: 'success' });
    // To the peso: the rejected 2,500 is back in A's wallet; 17,000 reached the bank clearing account.
    expect(await balance(t, a)).toBe(90_000);
    expect(await balance(t, b)).toBe(43_000);
    expect((await bankClearing()) - clearingBefore).toBe(17_000n);
    const movements = (await t.call(a, { method: 'GET', url: '/api/wallet', sign: true })).json()
      .wallet_movements as Record<string, unknown>[];
    expect(movements[0]).toMatchObject({ income_expense: 'income', amount: '2500' });
    // One callback per resolved payout, the sandbox's payout notification.
    const notes = [...(await notificationsOf(t, a.id)), ...(await notificationsOf(t, b.id))];
    const payloads = notes.map(
      (n) =>
        (typeof n.payload === 'string' ? JSON.parse(n.payload) : n.payload) as Record<
          string,
          unknown
        >,
    );
    expect(notes.map((n) => n.event_type)).toEqual([
      'payout.result',
      'payout.result',
      'payout.result',
    ]);
    expect(payloads.map((p) => [p.identifier_payout, p.status]).sort()).toEqual(
      [
        [a1, 'success'],
        [a2, 'banking_error'],
        [b1, 'success'],
      ].sort(),
    );

    // The same file again changes nothing.
    const twice = await run('payouts', 'import', file(results));
    expect(twice.stdout).toBe(
      '0 success, 0 banking_error, 3 already resolved, 0 left processing\n',
    );
    expect(await balance(t, a)).toBe(90_000);
    expect((await notificationsOf(t, a.id)).length + (await notificationsOf(t, b.id)).length).toBe(
      3,
    );
    expect((await run('ledger', 'verify')).exitCode).toBe(0);
  });

  it('refuses a results file it cannot trust whole, and reports rows it cannot apply', async () => {
    await exportAll();
    const a = await fundedAccount(20_000);
    const p1 = await pendingPayout(a, 4_000, 'bad-1');
    const p2 = await pendingPayout(a, 6_000, 'bad-2');
    await pendingPayout(a, 1_000, 'bad-3');
    const rows = (await exportAll()).filter((r) => r.payout_id === p1 || r.payout_id === p2);
    expect(rows).toHaveLength(2);
    const notExported = await pendingPayout(a, 500, 'bad-4');
    const batch = rows[0]!.batch_id!;
    for (const [text, message] of [
      ['id,result\nx,success\n', /must name the columns payout_id and status/],
      [
        `payout_id,status\n${p1},paid\n`,
        /row 1: status must be success or banking_error, got "paid"/,
      ],
      [
        `payout_id,status,reason\n${p1},success,\n${p2},banking_error,\n`,
        /row 2: a banking_error needs the bank's reason/,
      ],
      [`payout_id,status\n${p1},success\n${p1},success\n`, /row 2: payout .* appears twice/],
      [`payout_id,status\n"${p1},success\n`, /not a readable CSV file/],
      ['', /the file is empty/],
    ] as const) {
      const out = await run('payouts', 'import', file(text));
      expect(out.exitCode).toBe(2);
      expect(out.stderr).toContain('refused, no payout changed');
      expect(out.stderr).toMatch(message);
    }
    expect((await statusOf(a, p1)).status).toBe('processing');
    expect(await balance(t, a)).toBe(8_500);

    // Rows that name another payout, batch or amount are reported; the others apply.
    const mixed = [
      'batch_id,payout_id,amount,status,reason',
      `${batch},${p1},4000,success,`,
      `${batch},${p2},6001,success,`,
      `${batch},${notExported},500,success,`,
      `${batch},mor_nope,1,success,`,
    ];
    const out = await run('payouts', 'import', file(mixed.join('\n')));
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toBe('1 success, 0 banking_error, 0 already resolved, 0 left processing\n');
    expect(out.stderr).toContain('3 rows not applied');
    expect(out.stderr).toContain(`row 2: payout ${p2} is for 6000, the file says 6001`);
    expect(out.stderr).toContain(`row 3: payout ${notExported} was never exported in a bank file`);
    expect(out.stderr).toContain('row 4: payout mor_nope does not exist');
    expect(
      (await run('payouts', 'import', file(`batch_id,payout_id,status\npbtnope,${p2},success\n`)))
        .stderr,
    ).toContain(`row 1: payout ${p2} went out in batch ${batch}, not pbtnope`);
    // A row with no status yet leaves its payout processing; a payout resolved otherwise is named.
    expect((await run('payouts', 'resolve', p2, '--status', 'fraud_prevention')).exitCode).toBe(0);
    const late = await run(
      'payouts',
      'import',
      file(`payout_id,status,reason\n${p1},,\n${p2},success,\n`),
    );
    expect(late.stdout).toBe('0 success, 0 banking_error, 0 already resolved, 1 left processing\n');
    expect(late.stderr).toContain(`row 2: payout ${p2} is already fraud_prevention`);
    expect(await balance(t, a)).toBe(14_500);

    expect((await run('payouts', 'export', '--bank', '9999')).stderr).toMatch(
      /unknown bank code 9999/,
    );
    expect((await run('payouts', 'export', '--bank', '0001', '--format', 'xlsx')).exitCode).toBe(2);
    expect((await run('payouts', 'export')).exitCode).toBe(2);
    expect((await run('payouts', 'export', '--batch', 'pbtnope')).stderr).toMatch(
      /no payout batch/,
    );
    expect((await run('payouts', 'import', path.join(dir, 'missing.csv'))).stderr).toMatch(
      /cannot read .*ENOENT/,
    );
    expect((await run('ledger', 'verify')).exitCode).toBe(0);
  });

  it('never exports a payout twice nor resolves one twice when exports and imports race', async () => {
    await exportAll();
    const accounts = await Promise.all([
      fundedAccount(1_000_000),
      fundedAccount(1_000_000),
      fundedAccount(1_000_000),
    ]);
    const ids: string[] = [];
    for (let i = 0; i < 24; i++)
      ids.push(await pendingPayout(accounts[i % 3]!, 1_000 + i, `race-${i}`));
    const before = await Promise.all(accounts.map((a) => balance(t, a)));
    const outs = await Promise.all(
      [0, 1, 2, 3].map(() => run('payouts', 'export', '--bank', '0001')),
    );
    const exported = outs.flatMap((o) => (o.stdout === '' ? [] : rowsOf(o.stdout)));
    expect(exported.map((r) => r.payout_id).sort()).toEqual([...ids].sort());
    const batches = new Set(exported.map((r) => r.batch_id!));
    const stored = await t.ctx.db
      .selectFrom('payouts')
      .select(['id', 'batch_id', 'status'])
      .where('id', 'in', ids)
      .execute();
    for (const p of stored) {
      expect(p.status).toBe('processing');
      expect(exported.find((r) => r.payout_id === p.id)!.batch_id).toBe(p.batch_id);
    }
    const counts = await t.ctx.db
      .selectFrom('payout_batches')
      .select(['id', 'payout_count'])
      .where('id', 'in', [...batches])
      .execute();
    expect(counts.reduce((s, c) => s + c.payout_count, 0)).toBe(24);

    // Every other payout rejected; two imports of the same results at once resolve each payout once.
    const results = [
      'payout_id,status,reason',
      ...ids.map((id, i) =>
        i % 2 === 0 ? `${id},success,` : `${id},banking_error,Cuenta inexistente`,
      ),
    ].join('\n');
    const path1 = file(results);
    const [one, two] = await Promise.all([
      run('payouts', 'import', path1),
      run('payouts', 'import', path1),
    ]);
    const numbers = (s: string) => s.match(/\d+/g)!.map(Number);
    const [s1, e1, al1] = numbers(one.stdout);
    const [s2, e2, al2] = numbers(two.stdout);
    expect([s1! + s2!, e1! + e2!, al1! + al2!]).toEqual([12, 12, 24]);
    const rejected = (k: number) =>
      ids.reduce((sum, _, i) => sum + (i % 3 === k && i % 2 === 1 ? 1_000 + i : 0), 0);
    const after = await Promise.all(accounts.map((a) => balance(t, a)));
    expect(after).toEqual(before.map((b, k) => b + rejected(k)));
    const notes = (await Promise.all(accounts.map((a) => notificationsOf(t, a.id)))).flat();
    expect(notes).toHaveLength(24);
    expect((await run('ledger', 'verify')).exitCode).toBe(0);
  });

  it('forwards the file of `payouts import` to a serving process as an absolute path', () => {
    const argv = ['payouts', 'import', 'results.csv'];
    expect(withAbsoluteFile(argv, payoutsImport, 'results.csv')).toEqual([
      'payouts',
      'import',
      path.resolve('results.csv'),
    ]);
    expect(
      withAbsoluteFile(['payouts', 'import', '/tmp/r.csv'], payoutsImport, '/tmp/r.csv'),
    ).toEqual(['payouts', 'import', '/tmp/r.csv']);
  });
});
