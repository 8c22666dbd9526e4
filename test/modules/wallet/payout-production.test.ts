import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { balance, notificationsOf, payout } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
});
afterAll(async () => {
  await t.close();
});

describe('payouts in production mode', () => {
  it('has no sandbox funding endpoint', async () => {
    const a = await t.createAccount();
    const res = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/wallet/credit',
      body: { amount: 1000 },
    });
    expect(res.statusCode).toBe(404);
  });

  it('keeps even the sandbox amounts pending until an operator resolves them', async () => {
    const a = await t.createAccount();
    expect(
      (
        await dispatch(
          [
            'wallet',
            'credit',
            '--account',
            a.id,
            '--amount',
            '5000',
            '--reason',
            'funding',
            '--key',
            'F-1',
          ],
          t.ctx,
        )
      ).exitCode,
    ).toBe(0);
    const created = (await payout(t, a, { amount: 1500, order: 'prod-1' })).json();
    expect(created.status).toBe('success');
    t.clock.advanceMs(48 * 60 * 60 * 1000);
    await drainDueWork(t.ctx);
    const status = async () =>
      (
        await t.call(a, {
          method: 'GET',
          url: `/api/payoutv3/${created.identifier_payout}`,
          sign: true,
        })
      ).json().payout;
    expect((await status()).status).toBe('pending');
    expect(await balance(t, a)).toBe(3500);
    expect(
      (
        await dispatch(
          ['payouts', 'resolve', created.identifier_payout, '--status', 'processing'],
          t.ctx,
        )
      ).exitCode,
    ).toBe(0);
    expect(
      (
        await dispatch(
          ['payouts', 'resolve', created.identifier_payout, '--status', 'success'],
          t.ctx,
        )
      ).exitCode,
    ).toBe(0);
    expect(await status()).toMatchObject({ status: 'success', reason_rejection: '' });
    expect(await balance(t, a)).toBe(3500);
    const notes = await notificationsOf(t, a.id);
    expect(notes.map((n) => n.event_type)).toEqual(['payout.result']);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });
});
