import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balance, fund, notificationsOf, payout, payoutBody } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/wallet/payout', () => {
  it('answers the reference sample shape and reserves the amount', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const res = await payout(t, a, { amount: 4321 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['status', 'identifier_wallet', 'identifier_payout']);
    expect(body.status).toBe('success');
    expect(body.identifier_wallet).toMatch(/^wa[0-9a-f]{16}$/);
    expect(body.identifier_payout).toMatch(/^mor[0-9a-f]{17}$/);
    expect(await balance(t, a)).toBe(10_000 - 4321);
    const p = (
      await t.call(a, { method: 'GET', url: `/api/payout/${body.identifier_payout}`, sign: true })
    ).json();
    expect(p.payout).toMatchObject({
      id: body.identifier_payout,
      status: 'pending',
      amount: '4321',
      origin_wallet: body.identifier_wallet,
    });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('accepts the reference signature vector of the CL sample body', async () => {
    const a = await t.createAccount();
    await fund(t, a, 5000);
    // Reference §12.3: the CL sample body on /api/wallet/payout signs to c5dec316... with the doc's private token.
    expect(
      computeSign('fe551abcef62fcf002dc598922e68f0a', '/api/wallet/payout', payoutBody()),
    ).toBe('c5dec316fddfdcb3fc21c6ab25b7abe6f483a71bb3e065bdd80906d9dcc7af48');
    const res = await payout(t, a);
    expect(res.json().status).toBe('success');
  });

  it('refuses insufficient funds with HTTP 200 failed and writes nothing', async () => {
    const a = await t.createAccount();
    await fund(t, a, 999);
    const before = await t.ctx.db
      .selectFrom('journal_entries')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const res = await payout(t, a, { amount: 1000 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'insufficient_funds',
      message_error: expect.any(String),
      // The seed's 200 shape, identifiers empty (decision 755).
      identifier_wallet: '',
      identifier_payout: '',
    });
    const after = await t.ctx.db
      .selectFrom('journal_entries')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
    expect(
      await t.ctx.db.selectFrom('payouts').selectAll().where('account_id', '=', a.id).execute(),
    ).toEqual([]);
    expect(await balance(t, a)).toBe(999);
  });

  it('validates fields with the seed error body', async () => {
    const a = await t.createAccount();
    const res = await payout(t, a, {
      email: 'not-an-email',
      amount: 'abc',
      accountbank_type: '4',
      subject: '',
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ status: 'failed', type: 'Unprocessable Entity' });
    expect(body.errors).toMatchObject({
      email: 'invalid',
      amount: 'invalid',
      accountbank_type: 'invalid',
      subject: 'is empty',
    });
  });

  it('checks the bank code against the banks table and the Banco Estado number length', async () => {
    const a = await t.createAccount();
    await fund(t, a, 100_000);
    const unknownBank = await payout(t, a, { accountbank_sbif: '9999', order: 'b1' });
    expect(unknownBank.statusCode).toBe(400);
    expect(unknownBank.json().errors).toEqual({ accountbank_sbif: 'invalid' });
    const longEstado = await payout(t, a, {
      accountbank_sbif: '0012',
      accountbank_num: '4051885600446623',
      order: 'b2',
    });
    expect(longEstado.statusCode).toBe(400);
    expect(longEstado.json().errors).toEqual({ accountbank_num: 'too long' });
    const okEstado = await payout(t, a, {
      accountbank_sbif: '0012',
      accountbank_num: '123456789012',
      order: 'b3',
    });
    expect(okEstado.json().status).toBe('success');
    const otherBankLong = await payout(t, a, {
      accountbank_sbif: '0037',
      accountbank_num: '1234567890123456',
      order: 'b4',
    });
    expect(otherBankLong.json().status).toBe('success');
  });

  it('rejects a missing or wrong Sign', async () => {
    const a = await t.createAccount();
    const missing = await t.call(a, {
      method: 'POST',
      url: '/api/wallet/payout',
      body: payoutBody(),
    });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().message_error).toBe('waiting sign');
    const wrong = await t.call(a, {
      method: 'POST',
      url: '/api/wallet/payout',
      body: payoutBody(),
      headers: { sign: 'a'.repeat(64) },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message_error).toBe('invalid sign');
  });

  it('never notifies while the payout is still open', async () => {
    const a = await t.createAccount();
    await fund(t, a, 5000);
    await payout(t, a, { amount: 1234, order: 'open-1' });
    expect(await notificationsOf(t, a.id)).toEqual([]);
  });
});
