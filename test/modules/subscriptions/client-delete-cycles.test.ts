// Decision 660: a subscription that ends by any path (DELETE, the operator's cancel, its client deleted) ends its
// cycles waiting for a charge or a retry as `canceled by paymaster`. Before, deleting the client left them `retry`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createPlan, decliningCard, subscribedWithCard } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('deleting a client', () => {
  it("cancels its subscriptions' cycles waiting for a retry, as DELETE /api/sususcription does", async () => {
    const a = await t.createAccount('Cliente borrado');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 3000 });
    const sub = await subscribedWithCard(t, a, plan, {}, decliningCard);
    await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { days: 32 } });
    const before = await t.ctx.db
      .selectFrom('su_cycles')
      .select(['status'])
      .where('subscription_id', '=', sub.id)
      .execute();
    expect(before.map((c) => c.status)).toEqual(['retry']);
    const res = await t.call(a, {
      method: 'DELETE',
      url: `/api/suclient/${sub.client}`,
      sign: true,
    });
    expect(res.json()).toMatchObject({ status: 'success' });
    const after = await t.ctx.db
      .selectFrom('su_cycles')
      .select(['status', 'next_try_at'])
      .where('subscription_id', '=', sub.id)
      .execute();
    expect(after).toEqual([{ status: 'canceled by paymaster', next_try_at: null }]);
  });
});
