// Recurring billing (reference §7.0 steps 5, 7 and 8; issue 10 parts 5 and 7; decision 101), a due-work handler.
// Each step claims one active subscription whose next cycle or retry has come on its account's clock
// (billing-claim.ts: FOR UPDATE SKIP LOCKED, none with an attempt in flight) and takes its earliest event only: a
// new cycle, or the next try of an open one. Events are taken in the order they were due, and each is booked at the
// time it was due, never at the time the drain runs, so one clock advance of a year replays the year cycle by
// cycle, with the retries, suspensions and callbacks a year of real time would have had. A step is three commits,
// none open while the processor answers:
//   1. here: the cycle (unique per subscription and number), its attempt (a su_charges row unique per cycle and
//      try) and the pending payment, with the attempt's lease on the cycle;
//   2. settleCharge (stored-charge.ts, the same path as POST /api/sutransaction): the payment claimed, then the
//      processor's charge outside any transaction;
//   3. its outcome: the payment's money, and billing-outcome.ts's part, the cycle's record, a suspension if it was
//      the last try, and the §7.15 callback to the plan's url_notify_payment.
// A worker that dies between them leaves the lease (on the service clock, decision 785) to run out; the next step
// resumes the same payment, whose processor idempotency key is its id, so a cycle is never charged twice.
import { chargeAttempt, recordDecline, type Attempt } from './billing-outcome.ts';
import { setCycle, startCycle } from './cycle-rows.ts';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import type { PlanRow } from './repository.ts';
import {
  liveCards,
  subscriptionPlan,
  type CycleRow,
  type SubscriptionRow,
} from './subscription-repository.ts';
import { claimDueSubscription, type BillingFilter } from './billing-claim.ts';
import { waitingCycleStatuses } from './types.ts';
import { openCharge } from './charge-open.ts';

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
  const leaseUntil = new Date(leaseNow.getTime() + chargeLeaseMs(ctx));
  const held = await cycleHoldingAttempt(tx, sub);
  if (held !== undefined) return resumeAttempt(tx, sub, held, { now, leaseNow, leaseUntil });
  if (sub.status !== 'active') return null;
  const plan = await subscriptionPlan(tx, sub);
  const cycle = await dueCycle(ctx, tx, sub, plan, now);
  if (cycle === undefined) return null;
  return openTry(ctx, tx, { sub, plan, cycle }, leaseUntil);
}

/** The subscription's earliest cycle with an attempt still keyed on it (in flight, or its worker died), locked. */
async function cycleHoldingAttempt(tx: Tx, sub: SubscriptionRow): Promise<CycleRow | undefined> {
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

/**
 * A cycle holding an attempt: nothing while its lease runs (its worker is charging); once the lease ran out, its
 * worker died and the same payment goes again (its processor key is its id), under a new lease.
 */
async function resumeAttempt(
  tx: Tx,
  sub: SubscriptionRow,
  held: CycleRow,
  { now, leaseNow, leaseUntil }: { now: Date; leaseNow: Date; leaseUntil: Date },
): Promise<Attempt | null> {
  if (held.attempt_lease_until !== null && held.attempt_lease_until.getTime() > leaseNow.getTime())
    return null;
  await setCycle(tx, held, { attempt_lease_until: leaseUntil });
  return {
    subscriptionId: sub.id,
    cycleNumber: held.cycle_number,
    transactionId: held.attempt_key!,
    scheduledAt: held.next_try_at ?? now,
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
    .where('status', 'in', waitingCycleStatuses)
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

/**
 * A new cycle's first try: when it fell due (null), or when the card that pays it was enrolled if that came later (a
 * subscription overdue past what a new card collects at once, decision 1008), so no try is booked before its card.
 */
async function firstTryAt(
  tx: Tx,
  sub: SubscriptionRow,
  due: Date,
  now: Date,
): Promise<Date | null> {
  const card = (await liveCards(tx, sub.id))[0];
  if (card === undefined || card.created_at.getTime() <= due.getTime()) return null;
  return card.created_at.getTime() < now.getTime() ? card.created_at : now;
}

/** Opens the cycle's next try: a pending payment on its live card under a lease, or a decline when it has none. */
async function openTry(
  ctx: AppContext,
  tx: Tx,
  { sub, plan, cycle }: { sub: SubscriptionRow; plan: PlanRow; cycle: CycleRow },
  leaseUntil: Date,
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
    attempt_lease_until: leaseUntil,
  });
  return { subscriptionId: sub.id, cycleNumber: cycle.cycle_number, transactionId, scheduledAt };
}

/** The `order` of every try of one cycle: the subscription and the cycle's number. */
function cycleOrder(subscriptionId: string, cycleNumber: number): string {
  return `${subscriptionId}-${cycleNumber}`;
}
