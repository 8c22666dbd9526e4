// Decision 1008: a subscription suspended longer than `overdueCyclesCollectedMax` cycles, then given a new card.
// The card collects the first 400 overdue cycles at once (decision 101); the billing work starts the rest. Before
// this decision those were tried and booked on their own past due days, before the card that paid them existed, so
// their net was available at once instead of after the settlement delay; now no try of a cycle is booked before
// the newest card of its subscription was enrolled. Each cycle is still charged once, for the plan's amount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { runBilling } from '../../../src/modules/subscriptions/billing.ts';
import { subscriptionLimits } from '../../../src/limits/index.ts';
import { dayMs } from '../../../src/limits/units.ts';
import { createPlan, decliningCard, enrolOn, newCardLink, subscribedWithCard } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('a new card on a subscription more than 400 cycles overdue (decision 1008)', () => {
  it('charges every overdue cycle once, none booked before the card existed', async () => {
    const a = await t.createAccount('Muy atrasada');
    // The plan alone (not activeSubscription, which also subscribes a client with a good card: the account-wide
    // billing below then charged that subscription's 405 days too, half the file's CPU, proving nothing here).
    const plan = await createPlan(t, a, {
      name: 'Diario',
      amount: 70,
      interval: 'day',
      retries_max: 0,
    });
    const sub = await subscribedWithCard(t, a, plan, {}, decliningCard);
    const extra = 5;
    t.clock.advanceMs(dayMs + 1000);
    await runBilling(t.ctx, { accountId: a.id, limit: 10 });
    const suspended = await t.ctx.db
      .selectFrom('su_subscriptions')
      .select('status')
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(suspended.status).toBe('suspended');
    // Suspended for more days than a new card collects at once.
    t.clock.advanceMs((subscriptionLimits.overdueCyclesCollectedMax + extra) * dayMs);
    await enrolOn(t, await newCardLink(t, a, sub.id));
    while ((await runBilling(t.ctx, { accountId: a.id, limit: 200 })) > 0);
    const card = await t.ctx.db
      .selectFrom('su_cards')
      .select('created_at')
      .where('subscription_id', '=', sub.id)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    const cycles = await t.ctx.db
      .selectFrom('su_cycles')
      .select(['cycle_number', 'status', 'paid_at'])
      .where('subscription_id', '=', sub.id)
      .orderBy('cycle_number')
      .execute();
    // Cycle 1 and every cycle due since (one a day) paid once, for 70: more than a new card collects at once.
    expect(cycles.length).toBeGreaterThan(subscriptionLimits.overdueCyclesCollectedMax + 1);
    expect(cycles.filter((c) => c.status !== 'success')).toEqual([]);
    const early = cycles.filter((c) => c.paid_at!.getTime() < card.created_at.getTime());
    expect(early.map((c) => c.cycle_number)).toEqual([]);
    const paid = await t.ctx.db
      .selectFrom('su_charges as c')
      .innerJoin('transactions as p', 'p.id', 'c.transaction_id')
      .select(['c.cycle_number', 'p.amount_minor', 'p.created_at'])
      .where('c.subscription_id', '=', sub.id)
      .where('p.status', '=', 'success')
      .execute();
    expect(paid.length).toBe(cycles.length);
    expect(new Set(paid.map((p) => p.cycle_number)).size).toBe(cycles.length);
    expect(paid.every((p) => String(p.amount_minor) === '70')).toBe(true);
    expect(paid.filter((p) => p.created_at.getTime() < card.created_at.getTime())).toEqual([]);
    // Four hundred charges and more, one after another.
  }, 180_000);
});
