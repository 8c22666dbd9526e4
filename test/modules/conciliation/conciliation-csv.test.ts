// GET /api/conciliation.csv and `cobro conciliation export`: the POST's report as CSV, one row per transaction with
// its batch's columns repeated; read back with a real CSV parser, it has the same lines and the same totals.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { csvColumns } from '../../../src/modules/conciliation/csv.ts';
import { payByCard } from '../transactions/helpers.ts';

let t: TestApp;
let a: TestAccount;
const range = 'date_init=2026-03-01&date_end=2026-03-10';
const orders = ['plain-1', 'Pedido ñandú; "especial"', '=1+2', 'línea\nnueva'];

beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  await accountsSetFee.run(t.ctx, {
    values: { payment: '1', percent: '3.00', fixed: '15' },
    positionals: [a.id],
  });
  let amount = 10_000;
  for (const order of orders) {
    await payByCard(t, a, { amount, order });
    amount += 1_111;
    // Each advance settles what is due as one run: one batch per sale here, and one with two below.
    if (order !== orders[1])
      expect(
        (await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { hours: 1 } }))
          .statusCode,
      ).toBe(200);
  }
});
afterAll(async () => {
  await t.close();
});

function getCsv(account: TestAccount | null, query: string, headers: Record<string, string> = {}) {
  return t.call(account, { method: 'GET', url: `/api/conciliation.csv?${query}`, headers });
}

describe('GET /api/conciliation.csv', () => {
  it("answers the report as UTF-8 CSV with BOM, one row per transaction, with the JSON report's totals", async () => {
    const res = await getCsv(a, range);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="conciliation-2026-03-01-2026-03-10.csv"',
    );
    const raw = res.rawPayload;
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = raw.toString('utf8');
    expect(text).toContain('\r\n');

    const rows = parse(text, { bom: true, columns: true, delimiter: ';' }) as Array<
      Record<string, string>
    >;
    expect(Object.keys(rows[0]!)).toEqual([...csvColumns]);
    const json = (
      await t.call(a, {
        method: 'POST',
        url: '/api/conciliation',
        body: { date_init: '2026-03-01', date_end: '2026-03-10' },
      })
    ).json();
    const batches = json.conciliation as Array<Record<string, any>>;
    const lines = batches.flatMap((b) =>
      (b.transaction as Array<Record<string, any>>).map((l) => ({ b, l })),
    );
    expect(rows).toHaveLength(orders.length);
    expect(lines).toHaveLength(orders.length);
    expect(batches).toHaveLength(orders.length - 1);
    rows.forEach((row, i) => {
      const { b, l } = lines[i]!;
      expect(row).toEqual({
        batch_id: b.id,
        batch_created_at: b.created_at,
        batch_amount_available: String(b.amount_available),
        batch_amount_deposit: String(b.amount_deposit),
        batch_status: 'paid_out',
        destiny: 'wallet',
        currency: 'CLP',
        wallet: '',
        transaction_id: l.transaction_id,
        payment_key: l.payment_key,
        order: l.order.startsWith('=') ? `'${l.order}` : l.order,
        start: l.start,
        end: l.end,
        deposit_date: l.deposit_date,
        amount: String(l.amount),
        fee: String(l.fee),
        amount_deposit: String(l.amount_deposit),
        media: l.media,
      });
    });
    // Accents, the delimiter, quotes and a line break survive; a formula is defused.
    expect(rows.map((r) => r.order).sort()).toEqual(
      ['plain-1', 'Pedido ñandú; "especial"', 'línea\nnueva', "'=1+2"].sort(),
    );
    const csvTotal = rows.reduce((s, r) => s + Number.parseInt(r.amount_deposit!, 10), 0);
    const batchTotal = [
      ...new Map(
        rows.map((r) => [r.batch_id, Number.parseInt(r.batch_amount_available!, 10)]),
      ).values(),
    ].reduce((s, x) => s + x, 0);
    const jsonTotal = batches.reduce((s, b) => s + (b.amount_available as number), 0);
    expect(csvTotal).toBe(jsonTotal);
    expect(batchTotal).toBe(jsonTotal);
    const wallet = (await t.call(a, { method: 'GET', url: '/api/wallet', sign: true })).json();
    expect(wallet.amount_available).toBe(jsonTotal);
  });

  it('answers a header only for an empty range, and honours Accept: text/csv alone', async () => {
    const b = await t.createAccount();
    const res = await getCsv(b, range, { accept: 'text/csv' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`\ufeff${csvColumns.join(';')}\r\n`);
    expect((await getCsv(b, range, { accept: 'text/html' })).statusCode).toBe(406);
  });

  it('refuses bad dates with the JSON 400 of the POST, and a missing token with 401', async () => {
    const res = await getCsv(a, 'date_init=2026-03-01&date_end=2026-04-15');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', errors: { date_end: 'after today' } });
    expect((await getCsv(a, 'date_end=2026-03-05')).json()).toMatchObject({
      errors: { date_init: 'is empty' },
    });
    expect((await getCsv(null, range)).statusCode).toBe(401);
  });
});

describe('cobro conciliation export', () => {
  it('writes the same bytes as the CSV route', async () => {
    const out = await dispatch(
      ['conciliation', 'export', '--account', a.id, '--from', '2026-03-01', '--to', '2026-03-10'],
      t.ctx,
    );
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe((await getCsv(a, range)).body);
  });

  it('refuses bad arguments with the rule broken, by option name', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--account', a.id, '--from', '2026-03-01'], /usage/],
      [['--account', 'acc_nope', '--from', '2026-03-01', '--to', '2026-03-02'], /no account/],
      [['--account', a.id, '--from', '2026-03-05', '--to', '2026-03-01'], /--from: after date_end/],
      [
        ['--account', a.id, '--from', '2026-01-01', '--to', '2026-03-01'],
        /--to: more than 30 days/,
      ],
      [['--account', a.id, '--from', '2026/03/01', '--to', '2026-03-01'], /--from: invalid/],
    ];
    for (const [args, message] of cases) {
      const out = await dispatch(['conciliation', 'export', ...args], t.ctx);
      expect(out.exitCode).not.toBe(0);
      expect(out.stderr).toMatch(message);
    }
  });
});
