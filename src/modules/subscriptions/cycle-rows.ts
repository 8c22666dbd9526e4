// A billing cycle's row (su_cycles) as billing (billing.ts), its outcome (billing-outcome.ts) and a new card's
// overdue collection (overdue.ts) write it: a new cycle started, and a cycle's update.
import type { AppContext } from '../../platform/context.ts';
import { cycleDueAt } from './cycles.ts';
import type { Updateable } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import type { PlanRow } from './repository.ts';
import type { CycleRow, SubscriptionRow } from './subscription-repository.ts';
import type { SuCycleTable } from './types.ts';

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

/**
 * A cycle whose try ended after its subscription did: never tried again (decision 660; moveSubscription cancels the
 * cycles not in flight when the subscription ends).
 */
export async function cancelCycle(
  tx: Tx,
  cycle: Pick<CycleRow, 'subscription_id' | 'cycle_number'>,
): Promise<void> {
  await setCycle(tx, cycle, { status: 'canceled by paymaster', next_try_at: null, ...closed });
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
  const amountMinor = plan.type === 'variable' ? sub.amount_minor : plan.amount_minor;
  if (amountMinor === null) throw new Error(`subscription ${sub.id} has no amount to charge`);
  const n = sub.cycles_started + 1;
  const cycle = await tx
    .insertInto('su_cycles')
    .values({
      subscription_id: sub.id,
      cycle_number: n,
      account_id: sub.account_id,
      due_at: sub.next_cycle_at,
      amount_minor: amountMinor,
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
