// A billing cycle's row (su_cycles) as billing and its outcome read and write it: a new cycle started, a cycle's
// update, and its subscription's plan.
import type { AppContext } from '../../platform/context.ts';
import { cycleDueAt } from './cycles.ts';
import type { Selectable, Updateable } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import { findPlan, type PlanRow } from './repository.ts';
import { liveCards, type SubscriptionRow } from './subscription-repository.ts';
import type { SuCycleTable } from './types.ts';

export type CycleRow = Selectable<SuCycleTable>;

export async function setCycle(
  tx: Tx,
  cycle: Pick<CycleRow, 'subscription_id' | 'cycle_number'>,
  values: Updateable<SuCycleTable>,
): Promise<void> {
  await tx
    .updateTable('su_cycles')
    .set(values)
    .where('subscription_id', '=', cycle.subscription_id)
    .where('cycle_number', '=', cycle.cycle_number)
    .execute();
}

/** An attempt's end: no key, no lease. */
export const closed = { attempt_key: null, attempt_lease_until: null } as const;

export async function planOf(tx: Tx, sub: SubscriptionRow): Promise<PlanRow> {
  const plan = await findPlan(tx, sub.account_id, sub.plan_id);
  if (plan === undefined) throw new Error(`subscription ${sub.id} names a missing plan`);
  return plan;
}

/**
 * Creates the subscription's next cycle (unique by subscription and number), due at `next_cycle_at`, first tried
 * then (or at `tryAt`: overdue cycles collected on a new card), and moves `next_cycle_at` one interval on.
 */
export async function startCycle(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
  plan: PlanRow,
  tryAt: Date | null,
): Promise<CycleRow> {
  if (sub.next_cycle_at === null || sub.activated_at === null)
    throw new Error(`subscription ${sub.id} has no cycle due`);
  const amount = plan.type === 'variable' ? sub.amount_minor : plan.amount_minor;
  if (amount === null) throw new Error(`subscription ${sub.id} has no amount to charge`);
  const n = sub.cycles_started + 1;
  const cycle = await tx
    .insertInto('su_cycles')
    .values({
      subscription_id: sub.id,
      cycle_number: n,
      account_id: sub.account_id,
      due_at: sub.next_cycle_at,
      amount_minor: amount,
      status: 'pending',
      next_try_at: tryAt ?? sub.next_cycle_at,
      attempt_key: null,
      attempt_lease_until: null,
      paid_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const next = cycleDueAt(plan, sub.activated_at, n + 1, ctx.config.timeZone);
  await tx
    .updateTable('su_subscriptions')
    .set({ cycles_started: n, next_cycle_at: next })
    .where('id', '=', sub.id)
    .execute();
  Object.assign(sub, { cycles_started: n, next_cycle_at: next });
  return cycle;
}

/**
 * A new cycle's first try: when it fell due, or when the card that pays it was enrolled if that came later (a
 * subscription overdue past what a new card collects at once, decision 1008), so no try is booked before its card.
 */
export async function firstTryAt(
  tx: Tx,
  sub: SubscriptionRow,
  due: Date,
  now: Date,
): Promise<Date | null> {
  const card = (await liveCards(tx, sub.id))[0];
  if (card === undefined || card.created_at.getTime() <= due.getTime()) return null;
  return card.created_at.getTime() < now.getTime() ? card.created_at : now;
}
