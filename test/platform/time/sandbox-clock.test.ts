// The sandbox clock's total offset is bounded: advancing past it is a field error that changes nothing, so account
// time never reaches years where payments and payouts could not be stored or shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { fund, payout } from '../../modules/wallet/wallet-helpers.ts';
import { limits } from '../../../src/limits/index.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

const { sandboxAdvanceMsMax, sandboxOffsetMsMax } = limits;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/sandbox/clock/advance past the largest offset', () => {
  it('refuses with a field error and keeps the clock; payments and payouts still work at the furthest time', async () => {
    const a = await t.createAccount();
    await fund(t, a, 100_000);
    const advance = (body: Record<string, number>) =>
      t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body });
    // As many whole 400-day steps as fit, the way a script calling the endpoint in a loop would get there.
    const steps = Math.floor(sandboxOffsetMsMax / sandboxAdvanceMsMax);
    for (let i = 0; i < steps; i++)
      expect(await t.ctx.accountClock.advance(a.id, sandboxAdvanceMsMax, t.ctx.db)).not.toBeNull();
    const reached = await t.ctx.accountClock.offsetMs(a.id, t.ctx.db);
    expect(reached).toBe(steps * sandboxAdvanceMsMax);

    const over = await advance({ days: 400 });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      status: 'failed',
      message_error: 'body:too large',
      errors: { body: 'too large' },
    });
    expect(await t.ctx.accountClock.offsetMs(a.id, t.ctx.db)).toBe(reached);
    for (let i = 0; i < 400; i++) {
      if ((await t.ctx.accountClock.advance(a.id, sandboxAdvanceMsMax, t.ctx.db)) === null) break;
    }
    expect(await t.ctx.accountClock.offsetMs(a.id, t.ctx.db)).toBeLessThanOrEqual(
      sandboxOffsetMsMax,
    );
    const room = sandboxOffsetMsMax - (await t.ctx.accountClock.offsetMs(a.id, t.ctx.db));
    const last = await advance({ seconds: Math.floor(room / 1000) });
    expect(last.statusCode).toBe(200);
    expect((await advance({ days: 1 })).statusCode).toBe(400);
    expect(Number(last.json().now.slice(0, 4))).toBeLessThan(2200);

    expect((await payout(t, a, { amount: 4_000 })).json().status).toBe('success');
    const trx = await t.call(a, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'a@example.com', order: 'far', subject: 'Far future', amount: 100 },
    });
    expect(trx.statusCode).toBe(200);
    expect(trx.json().status).toBe('pending');
    expect((await advance({ seconds: 0, minutes: 0, hours: 0, days: 0 })).statusCode).toBe(400);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});
