// A new card on a subscription collects what is overdue (decision 101): billing.ts then charges it.
import { startCycle } from './cycle-rows.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import type { PlanRow } from './repository.ts';
import type { SubscriptionRow } from './subscription-repository.ts';
import { moveSubscription } from './subscription-transition.ts';

/**
 * A new card on a subscription (decision 101): a suspended one is `active` again, and what is overdue (cycles
 * declined to the limit, cycles still waiting for a retry, cycles that fell due while suspended) is due at once,
 * oldest first, on the new card. The caller charges it after its commit (billSubscriptionNow).
 */
export async function collectOverdue(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
  plan: PlanRow,
  now: Date,
): Promise<void> {
  if (sub.status !== 'active' && sub.status !== 'suspended') return;
  const wasSuspended = sub.status === 'suspended';
  if (wasSuspended) {
    await moveSubscription(tx, sub, 'active', now);
    sub.status = 'active';
  }
  await tx
    .updateTable('su_cycles')
    .set({ status: 'retry', next_try_at: now })
    .where('subscription_id', '=', sub.id)
    .where('status', 'in', ['retry', 'maximum attempt limit'])
    .where('attempt_key', 'is', null)
    .execute();
  if (!wasSuspended) return;
  for (
    let i = 0;
    i < subscriptionLimits.overdueCyclesCollectedMax &&
    sub.next_cycle_at !== null &&
    sub.next_cycle_at.getTime() <= now.getTime();
    i++
  ) {
    await startCycle(ctx, tx, sub, plan, now);
  }
}
