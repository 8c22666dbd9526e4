// Payout body fields exactly as the seed's table lists them: lengths, tolerant types, order_ext without a limit
// of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { fund, payout } from './wallet-helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
  await fund(t, merchant, 100_000);
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/wallet/payout fields (seed "Wallet")', () => {
  it('takes an order_ext longer than 80 characters: the seed sets no limit for it', async () => {
    const res = await payout(t, merchant, {
      order: 'ext-long',
      amount: 1000,
      order_ext: 'e'.repeat(200),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('success');
    const row = await t.ctx.db
      .selectFrom('payouts')
      .select('order_ext')
      .where('id', '=', res.json().identifier_payout)
      .executeTakeFirstOrThrow();
    expect(row.order_ext).toBe('e'.repeat(200));
  });

  it('takes numbers for string fields and digit strings for the amount, lengths applying to the text', async () => {
    const res = await payout(t, merchant, {
      order: 9876,
      amount: '2000',
      phone: 978456879,
      accountbank_rut: 111111111,
      accountbank_type: 1,
      accountbank_num: 123123123,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('success');
    const tooLong = await payout(t, merchant, {
      order: 'o'.repeat(81),
      phone: 10 ** 20,
      accountbank_type: 12,
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().errors).toEqual({
      order: 'too long',
      phone: 'too long',
      accountbank_type: 'too long',
    });
  });
});
