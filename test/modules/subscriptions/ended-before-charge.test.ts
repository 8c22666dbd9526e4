// Decision 670: a recurring try opened before its subscription was cancelled (or its card deleted), and not yet sent
// to the processor, is declined unsent: the card is not charged after the DELETE answered. Before, the worker that
// had committed the try went on and charged it. A try whose processor call may have happened (a worker killed after
// its claim) is still finished with the same idempotency key, never abandoned (decision 101).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createPlan, subscribedWithCard } from './helpers.ts';
import { openNextEvent } from '../../../src/modules/subscriptions/billing.ts';
import { chargeAttempt, type Attempt } from '../../../src/modules/subscriptions/billing-outcome.ts';
import { dayMs } from '../../../src/limits/units.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A subscription whose second cycle is due, its try opened (the worker's first commit) and not yet charged. */
async function tryOpened(name: string) {
  const a = await t.createAccount(name);
  const plan = await createPlan(t, a, { name: 'Mensual', amount: 4000 });
  const sub = await subscribedWithCard(t, a, plan);
  t.clock.advanceMs(32 * dayMs);
  const step = await openNextEvent(t.ctx, { subscriptionId: sub.id });
  expect(step).toMatchObject({ subscriptionId: sub.id });
  return { a, sub, attempt: step as Attempt };
}

async function paymentOf(id: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'gateway_message'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function cycleOf(subscriptionId: string, cycleNumber: number) {
  return t.ctx.db
    .selectFrom('su_cycles')
    .select(['status', 'next_try_at', 'attempt_key'])
    .where('subscription_id', '=', subscriptionId)
    .where('cycle_number', '=', cycleNumber)
    .executeTakeFirstOrThrow();
}

describe('a recurring try opened before its subscription ended (decision 670)', () => {
  it('is declined unsent when the subscription is cancelled before the charge', async () => {
    const { a, sub, attempt } = await tryOpened('Cancelada a tiempo');
    const del = await t.call(a, {
      method: 'DELETE',
      url: `/api/sususcription/${sub.id}`,
      sign: true,
    });
    expect(del.json()).toMatchObject({ status: 'success' });
    await chargeAttempt(t.ctx, attempt);
    expect(await paymentOf(attempt.transactionId)).toEqual({
      status: 'rejected',
      gateway_message: 'Cobro no enviado: la suscripción terminó.',
    });
    expect(await cycleOf(sub.id, attempt.cycleNumber)).toEqual({
      status: 'canceled by paymaster',
      next_try_at: null,
      attempt_key: null,
    });
    const captures = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', attempt.transactionId)
      .execute();
    expect(captures).toEqual([]);
  });

  it('is declined unsent when its card is deleted before the charge; the cycle waits for a retry', async () => {
    const { a, sub, attempt } = await tryOpened('Tarjeta borrada');
    const card = await t.ctx.db
      .selectFrom('su_cards')
      .select('id')
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    const del = await t.call(a, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: card.id },
    });
    expect(del.json()).toMatchObject({ status: 'Delete' });
    await chargeAttempt(t.ctx, attempt);
    expect(await paymentOf(attempt.transactionId)).toEqual({
      status: 'rejected',
      gateway_message: 'Cobro no enviado: la tarjeta fue eliminada.',
    });
    expect((await cycleOf(sub.id, attempt.cycleNumber)).status).toBe('retry');
  });

  it('is still finished, then refunded, when the processor may have seen it (a claim made before the cancel)', async () => {
    const { a, sub, attempt } = await tryOpened('Reclamada antes');
    // A worker claimed the payment (its attempt id set) and died during the processor call; its lease ran out.
    await t.ctx.db
      .updateTable('transactions')
      .set({ attempt_id: 'att_killedworker00000000', attempt_lease_until: null })
      .where('id', '=', attempt.transactionId)
      .execute();
    await t.call(a, { method: 'DELETE', url: `/api/sususcription/${sub.id}`, sign: true });
    await chargeAttempt(t.ctx, attempt);
    // Charged, then refunded in the same commit: the subscription had ended (decision 910).
    expect((await paymentOf(attempt.transactionId)).status).toBe('refunded');
    expect((await cycleOf(sub.id, attempt.cycleNumber)).status).toBe('canceled by paymaster');
  });
});
