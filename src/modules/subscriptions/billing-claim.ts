// Which subscription a billing step takes next (billing.ts): one whose next cycle or retry has come on its account's
// clock with no attempt in flight, or one holding an attempt whose worker died. Claimed FOR UPDATE SKIP LOCKED, so
// workers racing each take a different subscription.
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { waitingCycleStatuses } from './types.ts';

export interface BillingFilter {
  readonly accountId?: string;
  readonly subscriptionId?: string;
}

/**
 * An active subscription with a cycle or a try due on its account's clock and no attempt in flight, or any
 * subscription (deleted since, say) holding an attempt whose worker died: its lease ran out.
 */
export async function claimDueSubscription(ctx: AppContext, tx: Tx, filter: BillingFilter) {
  const now = ctx.accountClock.nowSql(sql.ref('s.account_id'));
  // An attempt's lease is on the service clock (decision 785): a sandbox clock advance never frees a live one.
  const leaseNow = ctx.clock.now();
  // The candidates come from three indexed reads (in production "now" is a constant), not a scan of every
  // subscription; the conditions below then decide on the locked row.
  const candidates = tx
    .selectFrom('su_subscriptions as n')
    .select('n.id')
    .where('n.status', '=', 'active')
    .where('n.next_cycle_at', '<=', ctx.accountClock.nowSql(sql.ref('n.account_id')))
    .union(
      tx
        .selectFrom('su_cycles as o')
        .select('o.subscription_id as id')
        .where('o.status', 'in', waitingCycleStatuses)
        .where('o.next_try_at', '<=', ctx.accountClock.nowSql(sql.ref('o.account_id'))),
    )
    .union(
      tx
        .selectFrom('su_cycles as e')
        .select('e.subscription_id as id')
        .where('e.attempt_key', 'is not', null)
        .where('e.attempt_lease_until', '<=', leaseNow),
    );
  let q = tx
    .selectFrom('su_subscriptions as s')
    .selectAll('s')
    .where('s.id', 'in', candidates)
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('su_cycles as d')
            .select('d.cycle_number')
            .whereRef('d.subscription_id', '=', 's.id')
            .where('d.attempt_key', 'is not', null)
            .where('d.attempt_lease_until', '<=', leaseNow),
        ),
        eb.and([
          eb('s.status', '=', 'active'),
          eb.not(
            eb.exists(
              eb
                .selectFrom('su_cycles as f')
                .select('f.cycle_number')
                .whereRef('f.subscription_id', '=', 's.id')
                .where('f.attempt_key', 'is not', null)
                .where('f.attempt_lease_until', '>', leaseNow),
            ),
          ),
          eb.or([
            eb('s.next_cycle_at', '<=', now),
            eb.exists(
              eb
                .selectFrom('su_cycles as c')
                .select('c.cycle_number')
                .whereRef('c.subscription_id', '=', 's.id')
                .where('c.status', 'in', waitingCycleStatuses)
                .where('c.next_try_at', '<=', now),
            ),
          ]),
        ]),
      ]),
    );
  if (filter.accountId !== undefined) q = q.where('s.account_id', '=', filter.accountId);
  if (filter.subscriptionId !== undefined) q = q.where('s.id', '=', filter.subscriptionId);
  return q.orderBy('s.seq').limit(1).forUpdate().skipLocked().executeTakeFirst();
}
