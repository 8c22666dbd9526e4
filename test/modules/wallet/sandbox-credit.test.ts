// Crediting a wallet (sandbox endpoint and `cobro wallet credit`) never takes the balance past what
// amount_available can show exactly: such a credit is refused and writes nothing, and the wallet stays readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { walletCredit } from '../../../src/cli/commands/wallet.ts';
import { limits } from '../../../src/limits/index.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balance } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const amountMax = 99_999_999_999_999;

describe('POST /api/sandbox/wallet/credit near the largest balance', () => {
  it('refuses a credit past the maximum balance with a field error, changes nothing, and the wallet stays readable', async () => {
    const a = await t.createAccount();
    const credit = (amount: number) =>
      t.call(a, {
        method: 'POST',
        url: '/api/sandbox/wallet/credit',
        body: { amount, currency: 'clp' },
      });
    for (let i = 0; i < 90; i++) expect((await credit(amountMax)).statusCode).toBe(200);
    const before = 90n * BigInt(amountMax);
    expect(BigInt(await balance(t, a))).toBe(before);
    const movementsBefore = await t.ctx.db
      .selectFrom('wallet_movements')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();

    const over = await credit(amountMax);
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      status: 'failed',
      message_error: 'amount:invalid',
      errors: { amount: 'invalid' },
    });
    expect(BigInt(await balance(t, a))).toBe(before);
    expect(
      await t.ctx.db
        .selectFrom('wallet_movements')
        .select('id')
        .where('account_id', '=', a.id)
        .execute(),
    ).toHaveLength(movementsBefore.length);

    // Up to the maximum exactly is fine, and shown exactly.
    const rest = limits.walletBalanceMinorMax - before;
    const exact = await credit(Number(rest));
    expect(exact.statusCode).toBe(200);
    expect(exact.json().amount_available).toBe(Number.MAX_SAFE_INTEGER);
    expect(await balance(t, a)).toBe(Number.MAX_SAFE_INTEGER);
    expect((await credit(1)).statusCode).toBe(400);
    const cli = await walletCredit.run(t.ctx, {
      values: { account: a.id, amount: '1', currency: 'CLP', reason: 'too much', key: 'too-much' },
      positionals: [],
    });
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain('maximum balance');
    expect(await balance(t, a)).toBe(Number.MAX_SAFE_INTEGER);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
