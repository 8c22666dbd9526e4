// SQL of subscriptions, their status logs, cards and charges. Every read is scoped to the owning account.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import { anyText, findPlan, type PlanRow } from './repository.ts';
import type { SubscriptionStatus } from './states.ts';
import './types.ts';

export async function findSubscription(db: DbOrTx, accountId: string, id: string) {
  return db
    .selectFrom('su_subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export type SubscriptionRow = NonNullable<Awaited<ReturnType<typeof findSubscription>>>;

/** The subscription's plan; a subscription always names one of its account's plans (plans are never deleted). */
export async function subscriptionPlan(
  db: DbOrTx,
  sub: Pick<SubscriptionRow, 'id' | 'account_id' | 'plan_id'>,
): Promise<PlanRow> {
  const plan = await findPlan(db, sub.account_id, sub.plan_id);
  if (plan === undefined) throw new Error(`subscription ${sub.id} names a missing plan`);
  return plan;
}

export async function lockSubscription(db: DbOrTx, id: string) {
  return db
    .selectFrom('su_subscriptions')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export interface SubscriptionFilter {
  readonly from: Date;
  readonly before: Date;
  readonly statuses: readonly SubscriptionStatus[];
  readonly offset: number;
  readonly size: number;
  readonly afterSeq?: bigint;
}

export async function listSubscriptions(db: DbOrTx, accountId: string, filter: SubscriptionFilter) {
  let q = db
    .selectFrom('su_subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('created_at', '>=', filter.from)
    .where('created_at', '<', filter.before);
  if (filter.statuses.length > 0) q = q.where('status', 'in', [...filter.statuses]);
  // Keyset after `afterSeq` (the chunk before's last row, chunked-read.ts), else the page's offset.
  q =
    filter.afterSeq === undefined ? q.offset(filter.offset) : q.where('seq', '>', filter.afterSeq);
  return q.orderBy('seq').limit(filter.size).execute();
}

export async function statusLogs(db: DbOrTx, subscriptionId: string) {
  return db
    .selectFrom('su_status_logs')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('seq')
    .limit(subscriptionLimits.logsShownMax)
    .execute();
}

/** The subscription's cards not removed, newest first: the first is the one charged. */
export async function liveCards(db: DbOrTx, subscriptionId: string) {
  return db
    .selectFrom('su_cards')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('deleted_at', 'is', null)
    .orderBy('seq', 'desc')
    .limit(subscriptionLimits.cardsPerSubscriptionMax)
    .execute();
}

/**
 * One of the subscription's cards not removed, by its id: any of them, however many newer ones it has (liveCards
 * reads only the newest cardsPerSubscriptionMax, what the reads show; nothing bounds the cards enrolled, decision 1140).
 */
export async function liveCard(db: DbOrTx, subscriptionId: string, cardId: string) {
  return db
    .selectFrom('su_cards')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('id', '=', cardId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function clientLiveCards(db: DbOrTx, clientId: string) {
  return db
    .selectFrom('su_cards')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .orderBy('seq', 'desc')
    .limit(subscriptionLimits.cardsPerSubscriptionMax)
    .execute();
}

export type CardRow = Awaited<ReturnType<typeof liveCards>>[number];

/** Every payment made on the subscription, oldest first, with the transaction's state and money. */
export async function subscriptionCharges(db: DbOrTx, subscriptionId: string) {
  return db
    .selectFrom('su_charges as c')
    .innerJoin('transactions as t', 't.id', 'c.transaction_id')
    .select([
      'c.kind',
      'c.cycle_number',
      'c.try_number',
      'c.order_ref',
      'c.description',
      'c.created_at',
      't.number',
      't.amount_minor',
      't.authorization_code',
      't.status',
      't.verification_key',
      't.ended_at',
    ])
    .where('c.subscription_id', '=', subscriptionId)
    .orderBy('c.seq')
    .limit(subscriptionLimits.chargesShownMax)
    .execute();
}

export type ChargeRow = Awaited<ReturnType<typeof subscriptionCharges>>[number];

export async function subscriptionCycles(db: DbOrTx, subscriptionId: string) {
  return db
    .selectFrom('su_cycles')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('cycle_number')
    .limit(subscriptionLimits.chargesShownMax)
    .execute();
}

export type CycleRow = Awaited<ReturnType<typeof subscriptionCycles>>[number];
export type StatusLogRow = Awaited<ReturnType<typeof statusLogs>>[number];

// The same reads for a page of subscriptions, one statement per kind for up to limits.dbReadChunkRowsMax ids (the
// caller chunks). Each subscription's rows are the ones its own read above returns, in that read's order: the
// window's ORDER BY is that read's, `rank_in_subscription` cuts at the same limit, and the rows come sorted by
// subscription and then by that order. The ids travel as one array parameter (`anyText`).

// A literal: the limit is a constant, and a literal keeps it out of the parameters.
const shownMax = (count: number) => sql.lit(BigInt(count));

export async function statusLogsOf(db: DbOrTx, subscriptionIds: readonly string[]) {
  const ranked = db
    .selectFrom('su_status_logs')
    .selectAll()
    .select((eb) =>
      eb.fn
        .agg<bigint>('row_number')
        .over((ob) => ob.partitionBy('subscription_id').orderBy('seq'))
        .as('rank_in_subscription'),
    )
    .where('subscription_id', '=', anyText(subscriptionIds));
  return db
    .selectFrom(ranked.as('l'))
    .selectAll()
    .where('rank_in_subscription', '<=', shownMax(subscriptionLimits.logsShownMax))
    .orderBy('subscription_id')
    .orderBy('seq')
    .execute();
}

export async function liveCardsOf(db: DbOrTx, subscriptionIds: readonly string[]) {
  const ranked = db
    .selectFrom('su_cards')
    .selectAll()
    .select((eb) =>
      eb.fn
        .agg<bigint>('row_number')
        .over((ob) => ob.partitionBy('subscription_id').orderBy('seq', 'desc'))
        .as('rank_in_subscription'),
    )
    .where('subscription_id', '=', anyText(subscriptionIds))
    .where('deleted_at', 'is', null);
  return db
    .selectFrom(ranked.as('k'))
    .selectAll()
    .where('rank_in_subscription', '<=', shownMax(subscriptionLimits.cardsPerSubscriptionMax))
    .orderBy('subscription_id')
    .orderBy('seq', 'desc')
    .execute();
}

export async function subscriptionChargesOf(db: DbOrTx, subscriptionIds: readonly string[]) {
  const ranked = db
    .selectFrom('su_charges as c')
    .innerJoin('transactions as t', 't.id', 'c.transaction_id')
    .select([
      'c.subscription_id',
      'c.seq',
      'c.kind',
      'c.cycle_number',
      'c.try_number',
      'c.order_ref',
      'c.description',
      'c.created_at',
      't.number',
      't.amount_minor',
      't.authorization_code',
      't.status',
      't.verification_key',
      't.ended_at',
    ])
    .select((eb) =>
      eb.fn
        .agg<bigint>('row_number')
        .over((ob) => ob.partitionBy('c.subscription_id').orderBy('c.seq'))
        .as('rank_in_subscription'),
    )
    .where('c.subscription_id', '=', anyText(subscriptionIds));
  return db
    .selectFrom(ranked.as('h'))
    .selectAll()
    .where('rank_in_subscription', '<=', shownMax(subscriptionLimits.chargesShownMax))
    .orderBy('subscription_id')
    .orderBy('seq')
    .execute();
}

export async function subscriptionCyclesOf(db: DbOrTx, subscriptionIds: readonly string[]) {
  const ranked = db
    .selectFrom('su_cycles')
    .selectAll()
    .select((eb) =>
      eb.fn
        .agg<bigint>('row_number')
        .over((ob) => ob.partitionBy('subscription_id').orderBy('cycle_number'))
        .as('rank_in_subscription'),
    )
    .where('subscription_id', '=', anyText(subscriptionIds));
  return db
    .selectFrom(ranked.as('y'))
    .selectAll()
    .where('rank_in_subscription', '<=', shownMax(subscriptionLimits.chargesShownMax))
    .orderBy('subscription_id')
    .orderBy('cycle_number')
    .execute();
}

export async function planCounts(
  db: DbOrTx,
  planId: string,
): Promise<{ total: number; active: number }> {
  const rows = await db
    .selectFrom('su_subscriptions')
    .select(['status', db.fn.countAll<string>().as('n')])
    .where('plan_id', '=', planId)
    .groupBy('status')
    .execute();
  let total = 0;
  let active = 0;
  for (const r of rows) {
    total += Number(r.n);
    if (r.status === 'active') active += Number(r.n);
  }
  return { total, active };
}

export async function latestClientSubscription(db: DbOrTx, clientId: string) {
  return db
    .selectFrom('su_subscriptions')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}
