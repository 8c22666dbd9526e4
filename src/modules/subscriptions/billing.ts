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
// A worker that dies between them leaves the lease to run out; the next step resumes the same payment, whose
// processor idempotency key is its id, so a cycle is never charged twice.
import { sql, type Selectable, type Updateable } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import type { TransactionRow } from '../transactions/repository.ts';
import { findPlan, type PlanRow } from './repository.ts';
import { liveCards, type SubscriptionRow } from './subscription-repository.ts';
import { moveSubscription } from './subscription-transition.ts';
import { isFinal } from './states.ts';
import { cycleDueAt } from './cycles.ts';
import { openCharge, settleCharge } from './stored-charge.ts';
import type { SuCycleTable } from './types.ts';

/** The outbox event of reference §7.15 (POST to the plan's url_notify_payment after each automatic charge). */
const paymentEvent = 'subscription.charge';

type CycleRow = Selectable<SuCycleTable>;

async function setCycle(
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
const closed = { attempt_key: null, attempt_lease_until: null } as const;

interface Attempt {
  readonly subscriptionId: string;
  readonly cycleNumber: number;
  readonly transactionId: string;
  /** When this try was due: the payment, the cycle's record and the callback carry this time. */
  readonly scheduledAt: Date;
}

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
  const step = await inTransaction(ctx.db, async (tx) => {
    const sub = await claimDueSubscription(ctx, tx, filter);
    if (sub === undefined) return null;
    return nextEvent(ctx, tx, sub);
  });
  if (step === null) return false;
  if (step === 'recorded') return true;
  await chargeAttempt(ctx, step);
  return true;
}

/**
 * An active subscription with a cycle or a try due on its account's clock and no attempt in flight, or any
 * subscription (deleted since, say) holding an attempt whose worker died: its lease ran out.
 */
async function claimDueSubscription(ctx: AppContext, tx: Tx, filter: BillingFilter) {
  const now = ctx.accountClock.nowSql(sql.ref('s.account_id'));
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
        .where('e.attempt_lease_until', '<=', ctx.accountClock.nowSql(sql.ref('e.account_id'))),
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
            .where('d.attempt_lease_until', '<=', now),
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
                .where('f.attempt_lease_until', '>', now),
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

async function planOf(tx: Tx, sub: SubscriptionRow): Promise<PlanRow> {
  const plan = await findPlan(tx, sub.account_id, sub.plan_id);
  if (plan === undefined) throw new Error(`subscription ${sub.id} names a missing plan`);
  return plan;
}

/** The subscription's earliest due event, opened: an attempt to charge, or a try recorded without one (no card). */
async function nextEvent(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
): Promise<Attempt | 'recorded' | null> {
  const now = await ctx.accountClock.now(sub.account_id, tx);
  const lease = new Date(now.getTime() + subscriptionLimits.chargeLeaseMs);
  const dead = await tx
    .selectFrom('su_cycles')
    .selectAll()
    .where('subscription_id', '=', sub.id)
    .where('attempt_key', 'is not', null)
    .orderBy('cycle_number')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
  if (dead !== undefined) {
    if (dead.attempt_lease_until !== null && dead.attempt_lease_until.getTime() > now.getTime())
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
  if (sub.status !== 'active') return null;
  const plan = await planOf(tx, sub);
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
    cycle = await startCycle(ctx, tx, sub, plan, null);
  }
  if (cycle === undefined) return null;
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

/**
 * Creates the subscription's next cycle (unique by subscription and number), due at `next_cycle_at`, first tried
 * then (or at `tryAt`: overdue cycles collected on a new card), and moves `next_cycle_at` one interval on.
 */
async function startCycle(
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

interface Locked {
  sub?: SubscriptionRow;
  cycle?: CycleRow;
  plan?: PlanRow;
}

/** Charges an opened attempt and records its outcome with the payment's own commit. */
async function chargeAttempt(ctx: AppContext, attempt: Attempt): Promise<void> {
  const locked: Locked = {};
  await settleCharge(ctx, attempt.transactionId, {
    recordAt: attempt.scheduledAt,
    lockFirst: async (tx) => {
      locked.sub = await tx
        .selectFrom('su_subscriptions')
        .selectAll()
        .where('id', '=', attempt.subscriptionId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      locked.cycle = await tx
        .selectFrom('su_cycles')
        .selectAll()
        .where('subscription_id', '=', attempt.subscriptionId)
        .where('cycle_number', '=', attempt.cycleNumber)
        .forUpdate()
        .executeTakeFirstOrThrow();
      locked.plan = await planOf(tx, locked.sub);
    },
    onFinal: async (tx, row, at) => {
      const { sub, cycle, plan } = locked;
      if (sub === undefined || cycle === undefined || plan === undefined)
        throw new Error('billing outcome without its rows');
      if (cycle.attempt_key !== row.id) {
        ctx.logger.error(
          { subscription: sub.id, cycle: cycle.cycle_number, transaction: row.id },
          'cycle outcome for an attempt it no longer holds',
        );
        return;
      }
      await recordOutcome(ctx, tx, { sub, cycle, plan }, row, at);
    },
  });
}

async function recordOutcome(
  ctx: AppContext,
  tx: Tx,
  rows: Required<Locked>,
  payment: TransactionRow,
  at: Date,
): Promise<void> {
  const { sub, cycle, plan } = rows;
  if (payment.status === 'success') {
    await setCycle(tx, cycle, { status: 'success', paid_at: at, next_try_at: null, ...closed });
  } else {
    await recordDecline(ctx, tx, sub, plan, cycle, at);
  }
  if (plan.url_notify_payment !== '') {
    await enqueueCallback(tx, {
      accountId: sub.account_id,
      url: plan.url_notify_payment,
      eventType: paymentEvent,
      payload: paymentPayload(sub, payment),
      at,
    });
  }
}

/** reference §7.15: `transaction_id` a number, `status` of the 5-value set, the subscription and its client. */
function paymentPayload(sub: Pick<SubscriptionRow, 'id' | 'client_id'>, payment: TransactionRow) {
  return {
    transaction_id: Number(payment.number),
    verification_key: payment.verification_key,
    order: payment.order,
    status: payment.status,
    subscriptions: { id: sub.id, client: sub.client_id },
  };
}

/**
 * A declined try (decision 101): the next one is due one retry interval after this one was, until the plan's
 * `retries_max` retries are spent; then the cycle is `maximum attempt limit` and the subscription `suspended`.
 */
async function recordDecline(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
  plan: PlanRow,
  cycle: CycleRow,
  at: Date,
): Promise<void> {
  if (isFinal(sub.status)) {
    await setCycle(tx, cycle, { status: 'canceled by paymaster', next_try_at: null, ...closed });
  } else if (cycle.try_number > plan.retries_max) {
    await setCycle(tx, cycle, { status: 'maximum attempt limit', next_try_at: null, ...closed });
    if (sub.status === 'active') await moveSubscription(tx, sub, 'suspended', at);
  } else {
    await setCycle(tx, cycle, {
      status: 'retry',
      next_try_at: new Date(at.getTime() + subscriptionLimits.cycleRetryIntervalMs),
      ...closed,
    });
  }
  ctx.logger.info(
    { subscription: sub.id, cycle: cycle.cycle_number, try: cycle.try_number },
    'subscription cycle declined',
  );
}

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
