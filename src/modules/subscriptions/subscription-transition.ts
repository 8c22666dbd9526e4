// The one way a subscription changes status: asserts the move in the state table, stamps the time, ends the waiting
// cycles of a subscription that ends (and marks its Oneclick cards for removal at Transbank), and appends the
// transition to logs.status[], in the caller's transaction.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import { assertMove, isFinal, type SubscriptionStatus } from './states.ts';
import type { SubscriptionRow } from './subscription-repository.ts';
import { markSubscriptionCards } from './card-removals.ts';
import { waitingCycleStatuses } from './types.ts';

export async function moveSubscription(
  db: DbOrTx,
  row: Pick<SubscriptionRow, 'id' | 'status'>,
  to: SubscriptionStatus,
  at: Date,
): Promise<void> {
  assertMove(row.status, to);
  await db
    .updateTable('su_subscriptions')
    .set({
      status: to,
      ...(isFinal(to) ? { ended_at: at, next_cycle_at: null } : {}),
      // The first activation anchors every cycle's due date (cycles.ts); a reactivation keeps it.
      ...(to === 'active' ? { activated_at: sql<Date>`COALESCE(activated_at, ${at})` } : {}),
    })
    .where('id', '=', row.id)
    .execute();
  // An ended subscription's cycles waiting for a charge or a retry will never be charged (decision 660), whichever
  // path ends it (DELETE, the operator's cancel, its client deleted); a cycle whose try is in flight is left to
  // record its outcome (decision 101), or to be resumed if its worker died.
  if (isFinal(to))
    await db
      .updateTable('su_cycles')
      .set({ status: 'canceled by paymaster', next_try_at: null })
      .where('subscription_id', '=', row.id)
      .where('status', 'in', waitingCycleStatuses)
      .where('attempt_key', 'is', null)
      .execute();
  // Its Oneclick cards are deleted at Transbank by the due work, unless another live subscription charges the same
  // inscription (decision 990).
  if (isFinal(to)) await markSubscriptionCards(db, row.id, at);
  await db
    .insertInto('su_status_logs')
    .values({
      subscription_id: row.id,
      changed_at: at,
      initial_status: row.status,
      final_status: to,
    })
    .execute();
}

export async function logCreation(db: DbOrTx, subscriptionId: string, at: Date): Promise<void> {
  await db
    .insertInto('su_status_logs')
    .values({
      subscription_id: subscriptionId,
      changed_at: at,
      initial_status: null,
      final_status: 'register',
    })
    .execute();
}
