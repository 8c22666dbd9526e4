// Recurring billing (reference §7.0 steps 5, 7 and 8; issue 10 parts 5 and 7; decision 101), a due-work handler.
// Each step claims one active subscription whose next cycle or retry has come on its account's clock
// (FOR UPDATE SKIP LOCKED, none with an attempt in flight) and takes its earliest event only: a new cycle, or the
// next try of an open one. Events are taken in the order they were due, and each is booked at the time it was
// due, never at the time the drain runs, so one clock advance of a year replays the year cycle by cycle, with the
// retries, suspensions and callbacks a year of real time would have had. A step is two commits around the
// processor call (stored-charge.ts, the same path as POST /api/sutransaction):
//   1. the cycle (unique per subscription and number), its attempt (a su_charges row unique per cycle and try)
//      and the pending payment, with the attempt's lease on the cycle;
//   2. the payment's outcome, its money, the cycle's record, a suspension if it was the last try, and the §7.15
//      callback to the plan's url_notify_payment.
// A worker that dies between them leaves the lease (on the service clock, decision 785) to run out; the next step
// resumes the same payment, whose processor idempotency key is its id, so a cycle is never charged twice.
import { sql } from 'kysely';
import { chargeAttempt, recordDecline, type Attempt } from './billing-outcome.ts';
import { firstTryAt, planOf, setCycle, startCycle, type CycleRow } from './cycle-rows.ts';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import type { PlanRow } from './repository.ts';
import { liveCards, type SubscriptionRow } from './subscription-repository.ts';
import { openCharge } from './charge-open.ts';

export interface BillingFilter {
  readonly accountId?: string;
  readonly subscriptionId?: string;
}

/** The due-work handler: at most `limit` billing events, each in its own commits. */
export async function runBilling(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  let processed = 0;
  while (
    processed < scope.limit &&
    (await billNext(ctx, scope.accountId === undefined ? {} : { accountId: scope.accountId }))
  )
    processed++;
  return processed;
}

/** Bills what is due on one subscription now (a new card's overdue cycles); the worker finishes what this leaves. */
export async function billSubscriptionNow(
  ctx: AppContext,
  subscriptionId: string,
): Promise<number> {
  let processed = 0;
  while (
    processed < subscriptionLimits.overdueCyclesCollectedMax &&
    (await billNext(ctx, { subscriptionId }))
  )
    processed++;
  return processed;
}

/** One billing event of one due subscription; false when none is due. */
export async function billNext(ctx: AppContext, filter: BillingFilter): Promise<boolean> {
  const step = await openNextEvent(ctx, filter);
  if (step === null) return false;
  if (step === 'recorded') return true;
  await chargeAttempt(ctx, step);
  return true;
}

/** The first commit of a billing event: an attempt opened to charge, a try recorded without one, or null. */
export async function openNextEvent(
  ctx: AppContext,
  filter: BillingFilter,
): Promise<Attempt | 'recorded' | null> {
  return inTransaction(ctx.db, async (tx) => {
    const sub = await claimDueSubscription(ctx, tx, filter);
    if (sub === undefined) return null;
    return nextEvent(ctx, tx, sub);
  });
}

/**
 * An active subscription with a cycle or a try due on its account's clock and no attempt in flight, or any
 * subscription (deleted since, say) holding an attempt whose worker died: its lease ran out.
 */
async function claimDueSubscription(ctx: AppContext, tx: Tx, filter: BillingFilter) {
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
        .where('o.status', 'in', ['pending', 'retry'])
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
                .where('c.status', 'in', ['pending', 'retry'])
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

/** subscriptionLimits.chargeLeaseMs, or ATTEMPT_LEASE_MS when that is shorter (decision 785). */
function chargeLeaseMs(ctx: AppContext): number {
  return Math.min(subscriptionLimits.chargeLeaseMs, ctx.config.attemptLeaseMs);
}

/** The subscription's earliest due event, opened: an attempt to charge, or a try recorded without one (no card). */
async function nextEvent(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
): Promise<Attempt | 'recorded' | null> {
  const now = await ctx.accountClock.now(sub.account_id, tx);
  // The lease is process-coordination time, on the service clock (decision 785); `now` is business time.
  const leaseNow = ctx.clock.now();
  const lease = new Date(leaseNow.getTime() + chargeLeaseMs(ctx));
  const dead = await attemptInFlight(tx, sub);
  if (dead !== undefined) return resumeAttempt(tx, sub, dead, { now, leaseNow, lease });
  if (sub.status !== 'active') return null;
  const plan = await planOf(tx, sub);
  const cycle = await dueCycle(ctx, tx, sub, plan, now);
  if (cycle === undefined) return null;
  return openTry(ctx, tx, { sub, plan, cycle }, lease);
}

/** The subscription's earliest cycle with an attempt still keyed on it, locked. */
async function attemptInFlight(tx: Tx, sub: SubscriptionRow): Promise<CycleRow | undefined> {
  return tx
    .selectFrom('su_cycles')
    .selectAll()
    .where('subscription_id', '=', sub.id)
    .where('attempt_key', 'is not', null)
    .orderBy('cycle_number')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

/** An attempt in flight: none while its lease runs; once it ran out, its worker died and the same payment goes again. */
async function resumeAttempt(
  tx: Tx,
  sub: SubscriptionRow,
  dead: CycleRow,
  { now, leaseNow, lease }: { now: Date; leaseNow: Date; lease: Date },
): Promise<Attempt | null> {
  if (dead.attempt_lease_until !== null && dead.attempt_lease_until.getTime() > leaseNow.getTime())
    return null;
  // An attempt whose worker died: the same payment again (its processor key is its id).
  await setCycle(tx, dead, { attempt_lease_until: lease });
  return {
    subscriptionId: sub.id,
    cycleNumber: dead.cycle_number,
    transactionId: dead.attempt_key!,
    scheduledAt: dead.next_try_at ?? now,
  };
}

/** The earliest try due now on an open cycle, or a new cycle when one fell due before it. */
async function dueCycle(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
  plan: PlanRow,
  now: Date,
): Promise<CycleRow | undefined> {
  const open = await tx
    .selectFrom('su_cycles')
    .selectAll()
    .where('subscription_id', '=', sub.id)
    .where('status', 'in', ['pending', 'retry'])
    .where('next_try_at', '<=', now)
    .orderBy('next_try_at')
    .orderBy('cycle_number')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
  const cycleDue =
    sub.next_cycle_at !== null && sub.next_cycle_at.getTime() <= now.getTime()
      ? sub.next_cycle_at
      : null;
  let cycle: CycleRow | undefined = open;
  if (
    cycleDue !== null &&
    (open === undefined || cycleDue.getTime() < open.next_try_at!.getTime())
  ) {
    cycle = await startCycle(ctx, tx, sub, plan, await firstTryAt(tx, sub, cycleDue, now));
  }
  return cycle;
}

/** Opens the cycle's next try: a pending payment on its live card under a lease, or a decline when it has none. */
async function openTry(
  ctx: AppContext,
  tx: Tx,
  { sub, plan, cycle }: { sub: SubscriptionRow; plan: PlanRow; cycle: CycleRow },
  lease: Date,
): Promise<Attempt | 'recorded'> {
  const scheduledAt = cycle.next_try_at!;
  const tryNumber = cycle.try_number + 1;
  const card = (await liveCards(tx, sub.id))[0];
  if (card === undefined) {
    // Nothing to charge: the try counts as declined, with no payment and no callback.
    await setCycle(tx, cycle, { try_number: tryNumber });
    await recordDecline(ctx, tx, sub, plan, { ...cycle, try_number: tryNumber }, scheduledAt);
    return 'recorded';
  }
  const client = await tx
    .selectFrom('su_clients')
    .select('email')
    .where('id', '=', sub.client_id)
    .executeTakeFirstOrThrow();
  const transactionId = await openCharge(tx, {
    accountId: sub.account_id,
    subscriptionId: sub.id,
    cardId: card.id,
    kind: 'cycle',
    cycleNumber: cycle.cycle_number,
    tryNumber,
    order: cycleOrder(sub.id, cycle.cycle_number),
    description: plan.name,
    email: client.email,
    amountMinor: BigInt(cycle.amount_minor),
    at: scheduledAt,
  });
  if (transactionId === null)
    throw new Error(`cycle ${cycle.cycle_number} of ${sub.id} could not open its charge`);
  await setCycle(tx, cycle, {
    try_number: tryNumber,
    attempt_key: transactionId,
    attempt_lease_until: lease,
  });
  return { subscriptionId: sub.id, cycleNumber: cycle.cycle_number, transactionId, scheduledAt };
}

/** The `order` of every try of one cycle: the subscription and the cycle's number. */
function cycleOrder(subscriptionId: string, cycleNumber: number): string {
  return `${subscriptionId}-${cycleNumber}`;
}
