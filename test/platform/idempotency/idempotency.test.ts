import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { balance, fund, payout } from '../../modules/wallet/wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const key = (k: string) => ({ 'idempotency-key': k });

describe('Idempotency-Key (supplement §4.5)', () => {
  it('replays the first answer with idempotent-replayed and moves money once', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const first = await payout(t, a, { amount: 1234, order: 'i-1' }, key('k-1'));
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await payout(t, a, { amount: 1234, order: 'i-1' }, key('k-1'));
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await balance(t, a)).toBe(10_000 - 1234);
  });

  it('replays a refusal too, even after the cause went away', async () => {
    const a = await t.createAccount();
    const poor = await payout(t, a, { amount: 1234, order: 'i-2' }, key('k-2'));
    expect(poor.json().type).toBe('insufficient_funds');
    await fund(t, a, 10_000);
    const again = await payout(t, a, { amount: 1234, order: 'i-2' }, key('k-2'));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().type).toBe('insufficient_funds');
    expect(await balance(t, a)).toBe(10_000);
  });

  it('answers 422 when the key comes back with another body or path', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    await payout(t, a, { amount: 1234, order: 'i-3' }, key('k-3'));
    const otherBody = await payout(t, a, { amount: 1235, order: 'i-3' }, key('k-3'));
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.json()).toMatchObject({
      status: 'failed',
      type: 'Unprocessable Entity',
      message_error: expect.stringContaining('other parameters'),
    });
    const otherPath = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/wallet/credit',
      body: { amount: 5 },
      headers: key('k-3'),
    });
    expect(otherPath.statusCode).toBe(422);
    expect(await balance(t, a)).toBe(10_000 - 1234);
  });

  it('answers 409 while the first request is in flight, and lets a retry take over an abandoned claim', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const first = await payout(t, a, { amount: 1234, order: 'i-4' }, key('k-4'));
    // Put the stored key back in the state a still-running first request leaves it in.
    await t.ctx.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', body: null, status_code: null })
      .where('account_id', '=', a.id)
      .where('idem_key', '=', 'k-4')
      .execute();
    const busy = await payout(t, a, { amount: 1234, order: 'i-4' }, key('k-4'));
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ status: 'failed', type: 'Conflict' });
    t.clock.advanceMs(61_000);
    const retried = await payout(t, a, { amount: 1234, order: 'i-4' }, key('k-4'));
    expect(retried.statusCode).toBe(200);
    // The order's own uniqueness answers the retry: same identifiers, no second reservation.
    expect(retried.json()).toEqual(first.json());
    expect(await balance(t, a)).toBe(10_000 - 1234);
  });

  it('scopes keys to the account and forgets them after 24 hours', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const credit = (who: typeof a, amount: number) =>
      t.call(who, {
        method: 'POST',
        url: '/api/sandbox/wallet/credit',
        body: { amount },
        headers: key('shared'),
      });
    expect((await credit(a, 100)).headers['idempotent-replayed']).toBeUndefined();
    expect((await credit(b, 200)).headers['idempotent-replayed']).toBeUndefined();
    expect((await credit(a, 100)).headers['idempotent-replayed']).toBe('true');
    expect(await balance(t, a)).toBe(100);
    expect(await balance(t, b)).toBe(200);
    t.clock.advanceMs(24 * 60 * 60 * 1000 + 1000);
    const processed = await drainDueWork(t.ctx);
    expect(processed['idempotency-expiry']).toBeGreaterThanOrEqual(2);
    const fresh = await credit(a, 300);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(await balance(t, a)).toBe(400);
  });

  it('refuses an empty or overlong key and ignores keys on GET', async () => {
    const a = await t.createAccount();
    const long = await payout(t, a, {}, key('x'.repeat(256)));
    expect(long.statusCode).toBe(400);
    expect(long.json().errors).toEqual({ 'Idempotency-Key': 'too long' });
    const empty = await payout(t, a, {}, key(' '));
    expect(empty.statusCode).toBe(400);
    const get = await t.call(a, {
      method: 'GET',
      url: '/api/wallet',
      sign: true,
      headers: key('g'),
    });
    expect(get.statusCode).toBe(200);
    expect(
      await t.ctx.db
        .selectFrom('idempotency_keys')
        .select('idem_key')
        .where('account_id', '=', a.id)
        .execute(),
    ).toEqual([]);
  });
});
