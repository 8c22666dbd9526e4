// Reviewer finding (r-connectors): a recurring Oneclick try whose authorize never reached Transbank (the connection
// dropped before Transbank recorded anything) is sent again by the next billing run after the subscription was
// cancelled. On the retry Cobro asks Transbank's status first, and the 404 proves Transbank never saw the charge, so
// the authorize that follows is a new charge of a cancelled subscription's card. Decision 670 declines unsent a try
// of an ended subscription; it counts a try as "maybe seen" once claimed, but with Oneclick the status answer says
// for certain that it was not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { OneclickSimulator } from '../../support/oneclick-simulator.ts';
import {
  oneclickEnrolled,
  startOneclickShop,
  oneclickVisa as visa,
} from '../../support/oneclick-shop.ts';
import { runBilling } from '../../../src/modules/subscriptions/billing.ts';
import { subscriptionLimits } from '../../../src/limits/index.ts';
import { oneclickForAccount } from '../../../src/platform/processors/oneclick-processor.ts';
import { createPlan, createSuClient, cycleDueNow } from './helpers.ts';

let t: TestApp;
let sim: OneclickSimulator;
let shop: TestAccount;
beforeAll(async () => {
  ({ t, sim, shop } = await startOneclickShop('Club Cancelado', 'cd'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** A subscription to `plan` whose payer registered `card` on the simulator's page. */
async function subscribedWithOneclick(plan: string, card: string, email: string): Promise<string> {
  const client = await createSuClient(t, shop, { email });
  return (await oneclickEnrolled(t, sim, shop, { plan, client, card })).id;
}

describe('a recurring Oneclick try that never reached Transbank, then the subscription is cancelled', () => {
  it('is not charged after the DELETE answered', async () => {
    const plan = await createPlan(t, shop, { name: 'Mensual', amount: 7770, interval: 'month' });
    const id = await subscribedWithOneclick(plan, visa, 'cancel@example.com');
    const charged = () => [...sim.charges.values()].filter((c) => c.amount === 7770).length;
    const before = charged();
    await cycleDueNow(t, id);
    // The cycle's authorize is dropped before Transbank records it: the answer is lost, nothing was charged.
    sim.authorizeFault = 'drop';
    await runBilling(t.ctx, { accountId: shop.id, limit: 1 }).catch(() => 0);
    sim.authorizeFault = 'none';
    expect(charged()).toBe(before);

    const del = await t.call(shop, {
      method: 'DELETE',
      url: `/api/sususcription/${id}`,
      sign: true,
    });
    expect(del.json()).toMatchObject({ status: 'success' });

    // The billing run resumes the attempt after its lease: Transbank's status answers 404 (no such charge; the
    // simulator logs no call for it), then Cobro sends the authorize again and the card is charged.
    t.clock.advanceMs(subscriptionLimits.chargeLeaseMs + 1000);
    await runBilling(t.ctx, { accountId: shop.id, limit: 10 }).catch(() => 0);
    expect(charged()).toBe(before);
    // Decision 750: the try is declined unsent, as one never claimed would be (decision 670), and its cycle ends.
    const payment = await t.ctx.db
      .selectFrom('su_charges')
      .innerJoin('transactions', 'transactions.id', 'su_charges.transaction_id')
      .select(['transactions.status', 'transactions.gateway_message'])
      .where('su_charges.subscription_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(payment).toEqual({
      status: 'rejected',
      gateway_message: 'Cobro no enviado: la suscripción terminó.',
    });
    const cycles = await t.ctx.db
      .selectFrom('su_cycles')
      .select('status')
      .where('subscription_id', '=', id)
      .where('status', '=', 'canceled by paymaster')
      .execute();
    expect(cycles).toHaveLength(1);
  });

  it('a try Transbank never saw of a subscription still active is sent again and charged', async () => {
    const plan = await createPlan(t, shop, { name: 'Semanal', amount: 6660, interval: 'month' });
    const id = await subscribedWithOneclick(plan, visa, 'active@example.com');
    const charged = () => [...sim.charges.values()].filter((c) => c.amount === 6660).length;
    const before = charged();
    await cycleDueNow(t, id);
    sim.authorizeFault = 'drop';
    await runBilling(t.ctx, { accountId: shop.id, limit: 1 }).catch(() => 0);
    sim.authorizeFault = 'none';
    expect(charged()).toBe(before);
    t.clock.advanceMs(subscriptionLimits.chargeLeaseMs + 1000);
    await runBilling(t.ctx, { accountId: shop.id, limit: 10 }).catch(() => 0);
    expect(charged()).toBe(before + 1);
  });

  it('a first authorize asks, right before it is sent, whether the charge is still wanted (decision 825)', async () => {
    const plan = await createPlan(t, shop, { name: 'Anual', amount: 5550, interval: 'year' });
    const id = await subscribedWithOneclick(plan, visa, 'late@example.com');
    const card = await t.ctx.db
      .selectFrom('su_cards')
      .select('processor_token')
      .where('subscription_id', '=', id)
      .executeTakeFirstOrThrow();
    const oneclick = await oneclickForAccount(t.ctx, shop.id);
    const calls = sim.calls.length;
    const outcome = await oneclick!.chargeStoredCard({
      cardToken: card.processor_token,
      installments: 0,
      idempotencyKey: 'trxcancelledinflight0',
      amountMinor: 5550n,
      currency: 'CLP',
      description: 'Anual',
      // A cancellation that committed after the claim: the caller's last check says so.
      unsentReason: async () => 'Cobro no enviado: la suscripción terminó.',
    });
    expect(outcome).toMatchObject({
      approved: false,
      gatewayMessage: 'Cobro no enviado: la suscripción terminó.',
    });
    expect(sim.calls.slice(calls)).toEqual([]);
    expect([...sim.charges.values()].filter((c) => c.amount === 5550)).toEqual([]);
  });

  it('a charge Transbank approves after the DELETE committed is refunded through Transbank at once (decision 910)', async () => {
    const plan = await createPlan(t, shop, { name: 'Trimestral', amount: 4440, interval: 'month' });
    const id = await subscribedWithOneclick(plan, visa, 'inflight@example.com');
    await cycleDueNow(t, id);
    // The losing order: Cobro's last check passed, Transbank charged the card, the DELETE commits before the answer.
    // A full refund the same day is a reversal at Transbank.
    sim.whileAuthorizing = async () => {
      const del = await t.call(shop, {
        method: 'DELETE',
        url: `/api/sususcription/${id}`,
        sign: true,
      });
      expect(del.json()).toMatchObject({ status: 'success' });
    };
    await runBilling(t.ctx, { accountId: shop.id, limit: 10 });
    expect(sim.whileAuthorizing).toBeNull();
    const charges = [...sim.charges.values()].filter((c) => c.amount === 4440);
    expect(charges.map((c) => [c.status, c.refunds])).toEqual([['REVERSED', [4440]]]);
    const payment = await t.ctx.db
      .selectFrom('su_charges')
      .innerJoin('transactions', 'transactions.id', 'su_charges.transaction_id')
      .select(['transactions.id', 'transactions.status'])
      .where('su_charges.subscription_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(payment.status).toBe('refunded');
    const refunds = await t.ctx.db
      .selectFrom('nullifications')
      .select('status')
      .where('transaction_id', '=', payment.id)
      .execute();
    expect(refunds).toEqual([{ status: 'reverse_completed' }]);
  });
});
