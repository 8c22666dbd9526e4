// Decision 1175: a bank account number is ASCII digits, in every place one is taken (payout body, marketplace
// client create and update, `cobro accounts set-bank --num`), dashes allowed between digit groups. A sign, a decimal
// point, an exponent, a space, a letter or a fullwidth digit is refused at the edge, naming the field, and nothing
// is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { fund, payout } from './wallet-helpers.ts';
import { createClient, sampleClient } from '../marketplace/helpers.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  await fund(t, a, 100_000);
});
afterAll(async () => {
  await t.close();
});

/** What cannot be an account number, as strings and as the JSON numbers a client may send. */
const refused: readonly unknown[] = [
  '-1',
  '1.5',
  '1e5',
  '+123',
  '１２３４５６',
  '١٢٣٤',
  '12 34',
  '0x1F',
  '123abc',
  '1-',
  '12--34',
  '1_000',
  -1,
  1.5,
];
/** Every sample of the seed and the reference, leading zeros and a 20-digit CCI included. */
const accepted: readonly string[] = [
  '12312312312',
  '9999999',
  '0012345678',
  '12345678901234567890',
];

describe('POST /api/wallet/payout accountbank_num', () => {
  it('refuses what is no account number with 400 naming the field, and stores no payout', async () => {
    for (const [i, num] of refused.entries()) {
      const res = await payout(t, a, { accountbank_num: num, order: `bad-${i}` });
      expect(res.statusCode, String(num)).toBe(400);
      expect(res.json(), String(num)).toMatchObject({ status: 'failed' });
      expect(Object.keys(res.json().errors), String(num)).toEqual(['accountbank_num']);
    }
    const stored = await t.ctx.db
      .selectFrom('payouts')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    expect(stored).toEqual([]);
  });

  it('takes every sample number, keeping its text', async () => {
    for (const [i, num] of accepted.entries()) {
      const res = await payout(t, a, { accountbank_num: num, order: `ok-${i}` });
      expect(res.json(), num).toMatchObject({ status: 'success' });
    }
    const nums = await t.ctx.db
      .selectFrom('payouts')
      .select('accountbank_num')
      .where('account_id', '=', a.id)
      .orderBy('accountbank_num')
      .execute();
    expect(nums.map((r) => r.accountbank_num)).toEqual([...accepted].sort());
  });
});

describe('marketplace clients bank.num', () => {
  it('POST /api/maclient refuses it with 400 naming bank.num and creates no client', async () => {
    const m = await t.createAccount();
    for (const num of refused) {
      const res = await t.call(m, {
        method: 'POST',
        url: '/api/maclient',
        body: { ...sampleClient, bank: { ...sampleClient.bank, num } },
      });
      expect(res.statusCode, String(num)).toBe(400);
      expect(res.json().errors, String(num)).toEqual({ 'bank.num': 'invalid' });
    }
    const clients = await t.ctx.db
      .selectFrom('ma_clients')
      .select('id')
      .where('account_id', '=', m.id)
      .execute();
    expect(clients).toEqual([]);
    for (const num of accepted) {
      const res = await t.call(m, {
        method: 'POST',
        url: '/api/maclient',
        body: { ...sampleClient, bank: { ...sampleClient.bank, num } },
      });
      expect(res.json().bank.num, num).toBe(num);
    }
  });

  it('PUT /api/maclient/{id} refuses it with 400 naming bank.num and leaves the client as it was', async () => {
    const m = await t.createAccount();
    const id = await createClient(t, m);
    for (const num of refused) {
      const res = await t.call(m, {
        method: 'PUT',
        url: `/api/maclient/${id}`,
        sign: true,
        body: { bank: { num } },
      });
      expect(res.statusCode, String(num)).toBe(400);
      expect(res.json().errors, String(num)).toEqual({ 'bank.num': 'invalid' });
    }
    const row = await t.ctx.db
      .selectFrom('ma_clients')
      .select(['bank_num', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ bank_num: sampleClient.bank.num, updated_at: null });
  });
});

describe('cobro accounts set-bank --num', () => {
  const setBank = (id: string, num: string) =>
    dispatch(
      [
        'accounts',
        'set-bank',
        id,
        '--sbif',
        '0001',
        '--type',
        '1',
        '--num',
        num,
        '--rut',
        '111111111',
        '--name',
        'Tienda SpA',
      ],
      t.ctx,
    );

  it('refuses what is no account number with exit 2 and changes nothing', async () => {
    const m = await t.createAccount();
    expect((await setBank(m.id, '12345678')).exitCode).toBe(0);
    for (const num of [...refused.filter((n) => typeof n === 'string'), '', '   ']) {
      const out = await setBank(m.id, num as string);
      expect([out.exitCode, out.stdout], JSON.stringify(num)).toEqual([2, '']);
      expect(out.stderr, JSON.stringify(num)).toMatch(/^--num /);
    }
    const bank = await t.ctx.db
      .selectFrom('account_bank_accounts')
      .select('num')
      .where('account_id', '=', m.id)
      .execute();
    expect(bank).toEqual([{ num: '12345678' }]);
  });
});
