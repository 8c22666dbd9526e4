import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balance, fund, notificationsOf, payout } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function getV3(account: Awaited<ReturnType<TestApp['createAccount']>>, id: string) {
  const res = await t.call(account, { method: 'GET', url: `/api/payoutv3/${id}`, sign: true });
  expect(res.statusCode).toBe(200);
  return res.json().payout;
}

describe('sandbox payout outcomes by amount (reference §13.4)', () => {
  it.each([1000, 2000, 3000])(
    'approves %i at once and notifies url_notify with success',
    async (amount) => {
      const a = await t.createAccount();
      await fund(t, a, 10_000);
      const created = (await payout(t, a, { amount, order: `ok-${amount}` })).json();
      expect(created.status).toBe('success');
      const p = await getV3(a, created.identifier_payout);
      expect(p).toMatchObject({ status: 'success', reason_rejection: '' });
      expect(await balance(t, a)).toBe(10_000 - amount);
      const [note] = await notificationsOf(t, a.id);
      expect(note).toMatchObject({
        event_type: 'payout.result',
        url: 'https://www.youwebsite.com/urlnotify?orderClient=98745',
      });
      const payload = typeof note!.payload === 'string' ? JSON.parse(note!.payload) : note!.payload;
      expect(payload).toEqual({
        id: created.identifier_payout,
        identifier_payout: created.identifier_payout,
        order: `ok-${amount}`,
        status: 'success',
        update_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        customer: {
          name: 'Jhon Doe',
          phone: '123456789',
          document: '111111111',
          number: '12312312312',
        },
      });
      const reserved = await t.ctx.db
        .selectFrom('ledger_accounts')
        .select('balance_minor')
        .where('owner', '=', a.id)
        .where('code', '=', 'wallet_reserved')
        .executeTakeFirstOrThrow();
      expect(reserved.balance_minor).toBe(0n);
    },
  );

  it.each([1500, 2500, 3500])(
    'rejects %i, restores the balance and notifies banking_error',
    async (amount) => {
      const a = await t.createAccount();
      await fund(t, a, 10_000);
      const created = (await payout(t, a, { amount, order: `ko-${amount}` })).json();
      expect(created.status).toBe('success');
      const p = await getV3(a, created.identifier_payout);
      expect(p.status).toBe('banking_error');
      expect(p.reason_rejection).toBe(
        ' Error CCA 51. Cuenta Beneficiario no Existe, error_creditor_account_not_found',
      );
      expect(await balance(t, a)).toBe(10_000);
      const notes = await notificationsOf(t, a.id);
      expect(notes).toHaveLength(1);
      const payload =
        typeof notes[0]!.payload === 'string' ? JSON.parse(notes[0]!.payload) : notes[0]!.payload;
      expect(payload).toMatchObject({
        identifier_payout: created.identifier_payout,
        status: 'banking_error',
        order: `ko-${amount}`,
      });
      // The movement log shows the reservation (now reversed) and the income that gave it back.
      const list = (
        await t.call(a, { method: 'GET', url: '/api/wallet/list?page=1&per_page=10', sign: true })
      ).json();
      const [reversal, reservation] = list.wallet_movements;
      expect(reservation).toMatchObject({
        id: created.identifier_wallet,
        income_expense: 'expense',
        status: 'reversed',
        amount: String(amount),
        actual_amount: String(10_000 - amount),
      });
      expect(reversal).toMatchObject({
        income_expense: 'income',
        status: 'current',
        amount: String(amount),
        actual_amount: '10000',
      });
      expect(reversal.payout).toMatchObject({
        id: created.identifier_payout,
        status: 'banking_error',
      });
      expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    },
  );

  it('moves other amounts pending -> processing -> success on the sandbox clock', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const created = (await payout(t, a, { amount: 1234, order: 'clock-1' })).json();
    expect((await getV3(a, created.identifier_payout)).status).toBe('pending');
    const advance = (body: Record<string, number>) =>
      t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body });
    await advance({ seconds: 59 });
    expect((await getV3(a, created.identifier_payout)).status).toBe('pending');
    const first = await advance({ seconds: 1 });
    expect(first.json().processed['payout-resolution']).toBe(1);
    expect((await getV3(a, created.identifier_payout)).status).toBe('processing');
    expect(await notificationsOf(t, a.id)).toEqual([]);
    await advance({ minutes: 59 });
    const done = await getV3(a, created.identifier_payout);
    expect(done.status).toBe('success');
    expect(done.update_at).toBe('2026-03-10 13:00:00');
    const notes = await notificationsOf(t, a.id);
    expect(notes).toHaveLength(1);
    expect(await balance(t, a)).toBe(10_000 - 1234);
    const clearing = await t.ctx.ledger.balance(t.ctx.db, {
      owner: 'system',
      code: 'bank_clearing',
      currency: 'CLP',
    });
    expect(clearing >= 1234n).toBe(true);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it("does not advance another account's payouts", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await fund(t, b, 5000);
    const created = (await payout(t, b, { amount: 1111, order: 'other-1' })).json();
    await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { hours: 2 } });
    expect((await getV3(b, created.identifier_payout)).status).toBe('pending');
  });

  it('answers 404 in the seed shape for an unknown or foreign payout', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await fund(t, b, 5000);
    const created = (await payout(t, b, { amount: 1000, order: 'foreign' })).json();
    for (const url of [
      '/api/payout/mor00000000000000000',
      `/api/payoutv3/${created.identifier_payout}`,
      `/api/payout/${created.identifier_payout}`,
    ]) {
      const res = await t.call(a, { method: 'GET', url, sign: true });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
    }
  });
});
