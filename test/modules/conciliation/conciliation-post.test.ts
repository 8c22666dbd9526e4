// POST /api/conciliation: the date rules of the seed, each a 400 naming its field, a sandbox month of sales,
// fees, a refund and a withdrawal whose settlement batches reproduce the wallet's settled total to the peso, and an
// escrow account's batch reported held until its sales are released (decision 432).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { payByCard } from '../transactions/helpers.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { conciliationOfDay } from './helpers.ts';

let t: TestApp;
// 2026-03-10 12:00 in Santiago; settlement one day after payment, as in production.
beforeAll(async () => {
  t = await startTestApp({ env: { SETTLEMENT_DELAY_DAYS: '1' } });
});
afterAll(async () => {
  await t.close();
});

function conciliation(account: TestAccount | null, body: unknown) {
  return t.call(account, { method: 'POST', url: '/api/conciliation', body });
}

async function advanceDays(account: TestAccount, days: number) {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sandbox/clock/advance',
    body: { days },
  });
  expect(res.statusCode).toBe(200);
}

describe('POST /api/conciliation date rules', () => {
  let a: TestAccount;
  beforeAll(async () => {
    a = await t.createAccount();
  });

  const cases: Array<[string, unknown, Record<string, string>]> = [
    ['both missing', {}, { date_init: 'is empty', date_end: 'is empty' }],
    ['date_init missing', { date_end: '2026-03-01' }, { date_init: 'is empty' }],
    ['date_end empty', { date_init: '2026-03-01', date_end: '' }, { date_end: 'is empty' }],
    [
      'date_init not YYYY-MM-DD',
      { date_init: '01-03-2026', date_end: '2026-03-05' },
      { date_init: 'invalid' },
    ],
    [
      'date_end not a real day',
      { date_init: '2026-02-01', date_end: '2026-02-30' },
      { date_end: 'invalid' },
    ],
    [
      'date_end with a time',
      { date_init: '2026-03-01', date_end: '2026-03-05 10:00' },
      { date_end: 'too long' },
    ],
    [
      'date_end after today',
      { date_init: '2026-03-01', date_end: '2026-03-11' },
      { date_end: 'after today' },
    ],
    [
      'both after today',
      { date_init: '2026-03-11', date_end: '2026-03-12' },
      { date_init: 'after today', date_end: 'after today' },
    ],
    [
      'date_init after date_end',
      { date_init: '2026-03-05', date_end: '2026-03-04' },
      { date_init: 'after date_end' },
    ],
    [
      '31 days',
      { date_init: '2026-02-07', date_end: '2026-03-10' },
      { date_end: 'more than 30 days after date_init' },
    ],
  ];
  it.each(cases)('%s: 400 in the seed envelope naming the field', async (_name, body, errors) => {
    const res = await conciliation(a, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'Unprocessable Entity',
      message_error: Object.entries(errors)
        .map(([f, p]) => `${f}:${p}`)
        .join(','),
      errors,
    });
  });

  it('accepts exactly 30 days ending today, and one day, answering an empty list when nothing settled', async () => {
    for (const body of [
      { date_init: '2026-02-08', date_end: '2026-03-10' },
      { date_init: '2026-03-10', date_end: '2026-03-10' },
    ]) {
      const res = await conciliation(a, body);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', conciliation: [] });
    }
  });

  it("measures today on the account's sandbox clock", async () => {
    const b = await t.createAccount();
    expect((await conciliationOfDay(t, b, '2026-03-12')).statusCode).toBe(400);
    await advanceDays(b, 2);
    expect((await conciliationOfDay(t, b, '2026-03-12')).statusCode).toBe(200);
    // Another account's clock did not move.
    expect((await conciliationOfDay(t, a, '2026-03-12')).statusCode).toBe(400);
  });

  it('answers 401 without a valid public token', async () => {
    const res = await conciliation(null, { date_init: '2026-03-01', date_end: '2026-03-05' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Unauthorized' });
  });
});

describe('POST /api/conciliation over a sandbox month', () => {
  it('lists each settlement batch with its transactions; the batches reproduce the wallet to the peso', async () => {
    const a = await t.createAccount();
    const other = await t.createAccount();
    await accountsSetFee.run(t.ctx, {
      values: { payment: '1', percent: '2.95', fixed: '0' },
      positionals: [a.id],
    });
    const bank = await dispatch(
      [
        'accounts',
        'set-bank',
        a.id,
        '--sbif',
        '0012',
        '--type',
        '2',
        '--num',
        '12345678',
        '--rut',
        '76123456K',
        '--name',
        'Comercio SpA',
      ],
      t.ctx,
    );
    expect(bank.exitCode).toBe(0);
    await payByCard(t, other, { amount: 9_999, order: 'other-1' });

    // Twelve sales over a month: two on some days, none on others; each settles the next day.
    const sales: Array<{ id: string; amount: number }> = [];
    let refunded = '';
    const amounts = [
      25_000, 1_990, 133_333, 7_777, 10_001, 45_500, 999, 12_345, 60_000, 3_333, 18_880, 2_222,
    ];
    for (let day = 0; day < amounts.length; day++) {
      const amount = amounts[day]!;
      const { created } = await payByCard(t, a, { amount, order: `o-${day}` });
      sales.push({ id: created.id, amount });
      if (day % 3 === 0) {
        const second = await payByCard(t, a, { amount: 500 + day, order: `o-${day}-b` });
        sales.push({ id: second.created.id, amount: 500 + day });
      }
      if (day === 3) {
        // A partial refund before the sale settles: it is taken from the sale's unsettled net, so that line's
        // settlement puts less in the wallet, and the report (read from the ledger) says so.
        const refund = await t.call(a, {
          method: 'POST',
          url: '/api/nullification',
          sign: true,
          body: { id: created.id, amount: 2_000, subject: 'devolución parcial' },
        });
        expect(refund.json().status).toBe('success');
        refunded = created.id;
      }
      if (day === 6) {
        // A withdrawal half-way: it takes money out of the wallet, never out of a settlement batch.
        const w = await t.call(a, {
          method: 'POST',
          url: '/api/wallet/withdraw',
          sign: true,
          body: { amount: 50_000, currency: 'CLP', order: 'w-1', subject: 'retiro' },
        });
        expect(w.json().status).toBe('Success');
      }
      await advanceDays(a, 2);
    }

    const res = await conciliation(a, { date_init: '2026-03-10', date_end: '2026-04-03' });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { status: string; conciliation: Array<Record<string, any>> };
    expect(body.status).toBe('success');
    const batches = body.conciliation;
    expect(batches.length).toBeGreaterThanOrEqual(amounts.length);

    const lines = batches.flatMap((b) => b.transaction as Array<Record<string, any>>);
    expect(lines.map((l) => l.transaction_id).sort()).toEqual(sales.map((s) => s.id).sort());
    const feeOf = (amount: number) => Math.floor((amount * 295 + 5_000) / 10_000);
    for (const line of lines) {
      const sale = sales.find((s) => s.id === line.transaction_id)!;
      expect(line).toMatchObject({
        amount: sale.amount,
        fee: feeOf(sale.amount),
        media: expect.any(String),
      });
      if (line.transaction_id === refunded)
        expect(line.amount_deposit).toBeLessThan(line.amount - line.fee);
      else expect(line.amount_deposit).toBe(line.amount - line.fee);
      expect(line.payment_key).toMatch(/\S/);
      expect(line.start).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(line.end).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(line.deposit_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    for (const b of batches) {
      expect(b).toMatchObject({
        id: expect.stringMatching(/^stb/),
        status: 'paid_out',
        destiny: 'wallet',
        currency: 'CLP',
        wallet: null,
      });
      expect(b.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(b.amount_available).toBe(
        (b.transaction as Array<{ amount_deposit: number }>).reduce(
          (s, l) => s + l.amount_deposit,
          0,
        ),
      );
      // Settled into the wallet in the batch's own commit: all of it paid out.
      expect(b.amount_deposit).toBe(b.amount_available);
    }

    // The wallet: what the batches made available, less the withdrawal, is the balance to the peso; and it is what
    // the wallet's settlement movements credited.
    const settledTotal = batches.reduce((s, b) => s + (b.amount_available as number), 0);
    const grossTotal = sales.reduce((s, x) => s + x.amount, 0);
    const refundedLine = lines.find((l) => l.transaction_id === refunded)!;
    const refundTakenMinor = refundedLine.amount - refundedLine.fee - refundedLine.amount_deposit;
    expect(refundTakenMinor).toBeGreaterThan(0);
    expect(settledTotal).toBe(
      grossTotal - sales.reduce((s, x) => s + feeOf(x.amount), 0) - refundTakenMinor,
    );
    const wallet = (
      await t.call(a, { method: 'GET', url: '/api/wallet/list?page=1&per_page=4000', sign: true })
    ).json();
    // Anything else that moved the wallet (a refund taken from it, its fee coming back) is a movement of its own.
    const others = await t.ctx.db
      .selectFrom('wallet_movements')
      .select(['income_expense', 'amount_minor'])
      .where('account_id', '=', a.id)
      .where('kind', 'not in', ['settlement', 'withdrawal'])
      .execute();
    const othersMinor = others.reduce(
      (s, m) => s + (m.income_expense === 'income' ? m.amount_minor : -m.amount_minor),
      0n,
    );
    expect(BigInt(wallet.amount_available)).toBe(BigInt(settledTotal - 50_000) + othersMinor);
    const settlementMovements = await t.ctx.db
      .selectFrom('wallet_movements')
      .select('amount_minor')
      .where('account_id', '=', a.id)
      .where('kind', '=', 'settlement')
      .execute();
    expect(settlementMovements.reduce((s, m) => s + m.amount_minor, 0n)).toBe(BigInt(settledTotal));

    // A narrower range lists only its batches; their days come from the batch's creation on the service zone.
    const firstWeek = (
      await conciliation(a, { date_init: '2026-03-10', date_end: '2026-03-16' })
    ).json().conciliation as Array<Record<string, any>>;
    expect(firstWeek.length).toBeGreaterThan(0);
    expect(firstWeek.length).toBeLessThan(batches.length);
    expect(
      firstWeek.every((b) => b.created_at >= '2026-03-10' && b.created_at < '2026-03-17'),
    ).toBe(true);
    expect(firstWeek.map((b) => b.id)).toEqual(
      batches.filter((b) => b.created_at < '2026-03-17').map((b) => b.id),
    );
    // The other account's batch is not listed.
    expect(lines.some((l) => l.order === 'other-1')).toBe(false);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('POST /api/conciliation for an escrow account', () => {
  it('reports a batch whose sales are held as deteined in escrow, and only released money as paid out', async () => {
    const a = await t.createAccount();
    expect((await accountsSetEscrow.run(t.ctx, { values: {}, positionals: [a.id] })).exitCode).toBe(
      0,
    );
    await accountsSetFee.run(t.ctx, {
      values: { payment: '1', percent: '2.95', fixed: '0' },
      positionals: [a.id],
    });
    const first = (await payByCard(t, a, { amount: 20_000, order: 'held-1' })).created.id;
    const second = (await payByCard(t, a, { amount: 10_000, order: 'held-2' })).created.id;
    await advanceDays(a, 2);
    const net = { [first]: 20_000 - 590, [second]: 10_000 - 295 };
    const report = async () => {
      const res = await conciliation(a, { date_init: '2026-03-10', date_end: '2026-03-12' });
      expect(res.statusCode, res.body).toBe(200);
      const batches = res.json().conciliation as Array<Record<string, any>>;
      expect(batches).toHaveLength(1);
      const [batch] = batches;
      for (const line of batch!.transaction as Array<Record<string, any>>)
        expect(line.amount_deposit).toBe(net[line.transaction_id]);
      return batch!;
    };
    // Both settled into the hold: nothing reached the wallet.
    expect(await report()).toMatchObject({
      status: 'deteined',
      destiny: 'escrow',
      amount_available: 29_115,
      amount_deposit: 0,
    });
    const wallet = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
    expect(wallet.json().amount_available).toBe(0);

    const one = await t.call(a, {
      method: 'POST',
      url: '/api/escrow',
      body: { transactions: [first] },
    });
    expect(one.json().transactions[0].status).toBe('liquidate');
    expect(await report()).toMatchObject({
      status: 'deteined',
      destiny: 'escrow',
      amount_available: 29_115,
      amount_deposit: 19_410,
    });

    const other = await t.call(a, {
      method: 'POST',
      url: '/api/escrow',
      body: { transactions: [second] },
    });
    expect(other.json().transactions[0].status).toBe('liquidate');
    expect(await report()).toMatchObject({
      status: 'paid_out',
      destiny: 'wallet',
      amount_available: 29_115,
      amount_deposit: 29_115,
    });
    const after = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
    expect(after.json().amount_available).toBe(29_115);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
