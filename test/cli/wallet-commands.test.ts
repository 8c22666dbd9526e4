import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../support/app.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { balance, fund, notificationsOf, payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const run = (...argv: string[]) => dispatch(argv, t.ctx);

describe('cobro wallet credit / ledger verify / accounts set-bank / payouts resolve', () => {
  it('credits a wallet through the ledger and verifies clean', async () => {
    const a = await t.createAccount();
    const out = await run(
      'wallet',
      'credit',
      '--account',
      a.id,
      '--amount',
      '25000',
      '--currency',
      'clp',
      '--reason',
      'opening balance',
      '--key',
      'TICKET-1',
      '--json',
    );
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ amount_available: '25000', currency: 'CLP' });
    expect(await balance(t, a)).toBe(25_000);
    const movement = (await t.call(a, { method: 'GET', url: '/api/wallet', sign: true })).json()
      .wallet_movements[0];
    expect(movement).toMatchObject({
      subject: 'opening balance',
      income_expense: 'income',
      amount: '25000',
    });
    const verify = await run('ledger', 'verify');
    expect(verify.exitCode).toBe(0);
    expect(verify.stdout).toMatch(/^ledger clean: \d+ accounts, \d+ journals balance/);
  });

  it('refuses bad credit arguments', async () => {
    const a = await t.createAccount();
    for (const [args, message] of [
      [['--account', a.id, '--amount', '1.5', '--reason', 'x', '--key', 'K'], /--amount/],
      [['--account', a.id, '--amount', '0', '--reason', 'x', '--key', 'K'], /--amount/],
      [['--account', a.id, '--amount', '10', '--reason', ' ', '--key', 'K'], /--reason/],
      [
        ['--account', a.id, '--amount', '10', '--reason', 'x', '--currency', 'usd', '--key', 'K'],
        /unknown currency/,
      ],
      [['--account', 'acc_nope', '--amount', '10', '--reason', 'x', '--key', 'K'], /no account/],
      [['--amount', '10'], /usage/],
    ] as const) {
      const out = await run('wallet', 'credit', ...args);
      expect(out.exitCode).not.toBe(0);
      expect(out.stderr).toMatch(message);
    }
    expect(await balance(t, a)).toBe(0);
  });

  it('names the first fault when a balance does not match its postings', async () => {
    const a = await t.createAccount();
    await fund(t, a, 100);
    await sql`UPDATE ledger_accounts SET balance_minor = balance_minor + 1 WHERE owner = ${a.id} AND code = 'wallet_available'`.execute(
      t.ctx.db,
    );
    const out = await run('ledger', 'verify');
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain(
      `ledger account ${a.id}/wallet_available/CLP holds 101 but its postings sum to 100`,
    );
    await sql`UPDATE ledger_accounts SET balance_minor = balance_minor - 1 WHERE owner = ${a.id} AND code = 'wallet_available'`.execute(
      t.ctx.db,
    );
    expect((await run('ledger', 'verify')).exitCode).toBe(0);
  });

  it('checks bank accounts set for withdrawals', async () => {
    const a = await t.createAccount();
    const base = ['accounts', 'set-bank', a.id, '--rut', '111111111', '--name', 'Holder'];
    expect((await run(...base, '--sbif', '9999', '--type', '1', '--num', '1')).stderr).toMatch(
      /unknown CLP bank code 9999/,
    );
    expect((await run(...base, '--sbif', '0001', '--type', '4', '--num', '1')).stderr).toMatch(
      /--type/,
    );
    expect(
      (await run(...base, '--sbif', '0012', '--type', '1', '--num', '1234567890123')).stderr,
    ).toMatch(/at most 12/);
    expect(
      (
        await run(
          'accounts',
          'set-bank',
          'acc_nope',
          '--sbif',
          '0001',
          '--type',
          '1',
          '--num',
          '1',
          '--rut',
          '1',
          '--name',
          'x',
        )
      ).stderr,
    ).toMatch(/no account/);
    const good = await run(...base, '--sbif', '0001', '--type', '1', '--num', '123', '--json');
    expect(good.exitCode).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({
      account_id: a.id,
      currency: 'CLP',
      sbif: '0001',
      type: '1',
      num: '123',
      rut: '111111111',
      name: 'Holder',
    });
  });

  it('lets an operator reject a payout for fraud, giving the money back and notifying', async () => {
    const a = await t.createAccount();
    await fund(t, a, 9000);
    const created = (await payout(t, a, { amount: 4444, order: 'fraud-1' })).json();
    const out = await run(
      'payouts',
      'resolve',
      created.identifier_payout,
      '--status',
      'fraud_prevention',
    );
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain('fraud_prevention');
    expect(await balance(t, a)).toBe(9000);
    const v3 = (
      await t.call(a, {
        method: 'GET',
        url: `/api/payoutv3/${created.identifier_payout}`,
        sign: true,
      })
    ).json().payout;
    expect(v3).toMatchObject({
      status: 'fraud_prevention',
      reason_rejection: 'Rechazado por prevención de fraude',
    });
    const notes = await notificationsOf(t, a.id);
    expect(notes).toHaveLength(1);
    const payload =
      typeof notes[0]!.payload === 'string' ? JSON.parse(notes[0]!.payload) : notes[0]!.payload;
    expect(payload.status).toBe('fraud_prevention');
    const again = await run('payouts', 'resolve', created.identifier_payout, '--status', 'success');
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/is fraud_prevention and cannot become success/);
    expect((await run('payouts', 'resolve', 'mor_nope', '--status', 'success')).stderr).toMatch(
      /no payout/,
    );
    expect(
      (await run('payouts', 'resolve', created.identifier_payout, '--status', 'pending')).exitCode,
    ).toBe(2);
    expect((await run('ledger', 'verify')).exitCode).toBe(0);
  });
});
