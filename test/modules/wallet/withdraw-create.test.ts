import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balance, fund } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const sampleBody = { amount: 1000, currency: 'CLP', order: '133222', subject: 'withdraw 133222' };

function withdraw(account: TestAccount, body: Record<string, unknown> = sampleBody) {
  return t.call(account, { method: 'POST', url: '/api/wallet/withdraw', body, sign: true });
}

async function setBank(account: TestAccount) {
  const out = await dispatch(
    [
      'accounts',
      'set-bank',
      account.id,
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
  expect(out.exitCode).toBe(0);
}

describe('POST /api/wallet/withdraw', () => {
  it('signs the reference vector of the sample body', () => {
    expect(
      computeSign('fe551abcef62fcf002dc598922e68f0a', '/api/wallet/withdraw', sampleBody),
    ).toBe('3ad64ab75fd70884ce4673b88d0cc019aaa5cc8f68925fb1295bdb91b5970b2d');
  });

  it("pays the account's own bank account and answers the seed sample shape", async () => {
    const a = await t.createAccount();
    await setBank(a);
    await fund(t, a, 5000);
    const res = await withdraw(a);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      status: 'Success',
      identifier_wallet: expect.stringMatching(/^wa[0-9a-f]{16}$/),
    });
    expect(await balance(t, a)).toBe(4000);
    const one = (
      await t.call(a, { method: 'GET', url: `/api/wallet/${body.identifier_wallet}`, sign: true })
    ).json();
    expect(one.wallet_movements[0]).toMatchObject({
      order: '133222',
      subject: 'withdraw 133222',
      income_expense: 'expense',
      amount: '1000',
      actual_amount: '4000',
      payout: {
        accountbank_sbif: '0012',
        accountbank_type: 2,
        accountbank_num: 12345678,
        accountbank_rut: '76123456K',
        accountbank_name: 'Comercio SpA',
        email: '',
        phone: '',
        status: 'pending',
      },
    });
  });

  it('follows the sandbox clock whatever the amount, ending in success', async () => {
    const a = await t.createAccount();
    await setBank(a);
    await fund(t, a, 5000);
    const created = (await withdraw(a, { ...sampleBody, amount: 1500, order: 'w-1500' })).json();
    const payoutId = (
      await t.ctx.db
        .selectFrom('payouts')
        .select('id')
        .where('movement_id', '=', created.identifier_wallet)
        .executeTakeFirstOrThrow()
    ).id;
    const status = async () =>
      (await t.call(a, { method: 'GET', url: `/api/payout/${payoutId}`, sign: true })).json().payout
        .status;
    expect(await status()).toBe('pending');
    await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { hours: 2 } });
    expect(await status()).toBe('success');
    expect(await balance(t, a)).toBe(3500);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('refuses without a bank account, without funds, and for a reused order with another body', async () => {
    const a = await t.createAccount();
    // Without the sandbox's test bank account (decision 755): as a production account, or a sandbox one made before.
    await t.ctx.db.deleteFrom('account_bank_accounts').where('account_id', '=', a.id).execute();
    await fund(t, a, 1500);
    const noBank = await withdraw(a);
    expect(noBank.statusCode).toBe(200);
    expect(noBank.json()).toMatchObject({
      status: 'failed',
      type: 'bank_account_missing',
      identifier_wallet: '',
    });
    await setBank(a);
    const poor = await withdraw(a, { ...sampleBody, amount: 2000 });
    expect(poor.json()).toMatchObject({ status: 'failed', type: 'insufficient_funds' });
    const first = await withdraw(a);
    const replay = await withdraw(a, { ...sampleBody, amount: '1000' });
    expect(replay.json()).toEqual(first.json());
    const other = await withdraw(a, { ...sampleBody, subject: 'another' });
    expect(other.json()).toMatchObject({ status: 'failed', type: 'duplicate_order' });
    expect(await balance(t, a)).toBe(500);
  });

  it('a new sandbox account withdraws at once to its test bank account (decision 755)', async () => {
    const a = await t.createAccount('Sandbox holder');
    await fund(t, a, 1000);
    const res = await withdraw(a);
    expect(res.json()).toMatchObject({ status: 'Success', identifier_wallet: expect.any(String) });
    const bank = await t.ctx.db
      .selectFrom('account_bank_accounts')
      .selectAll()
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(bank).toMatchObject({
      currency: 'CLP',
      sbif: '0001',
      type: '1',
      num: '000123456789',
      rut: '111111111',
      holder_name: 'Sandbox holder',
    });
  });

  it('validates the body', async () => {
    const a = await t.createAccount();
    const res = await withdraw(a, {
      subject: 'x',
      currency: 'CLP',
      order: 'o'.repeat(81),
      amount: 0,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual({ order: 'too long', amount: 'too small' });
    const bad = await withdraw(a, { ...sampleBody, currency: 'XYZ' });
    expect(bad.json().errors).toEqual({ currency: 'invalid' });
  });
});
