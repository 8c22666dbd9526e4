// A billing attempt's second commit (billing.ts opens it): the payment's outcome recorded on its cycle, a
// declined try's retry or suspension (decision 101), and the §7.15 callback to the plan's url_notify_payment.
import { integerAsExact } from '../../platform/money/json-number.ts';
import { cancelCycle, closed, setCycle } from './cycle-rows.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import type { TransactionRow } from '../transactions/repository.ts';
import type { PlanRow } from './repository.ts';
import { moveSubscription } from './subscription-transition.ts';
import {
  liveCards,
  subscriptionPlan,
  type CycleRow,
  type SubscriptionRow,
} from './subscription-repository.ts';
import { isFinal } from './states.ts';
import { settleCharge } from './stored-charge.ts';
import { refundEndedCharge } from './charge-refund.ts';
import { dispatchNullification } from '../refunds/dispatch.ts';

/** The outbox event of reference §7.15 (POST to the plan's url_notify_payment after each automatic charge). */
const paymentEvent = 'subscription.charge';

export interface Attempt {
  readonly subscriptionId: string;
  readonly cycleNumber: number;
  readonly transactionId: string;
  /** When this try was due: the payment, the cycle's record and the callback carry this time. */
  readonly scheduledAt: Date;
}

interface Locked {
  sub?: SubscriptionRow;
  cycle?: CycleRow;
  plan?: PlanRow;
}

/** Charges an opened attempt and records its outcome with the payment's own commit. */
export async function chargeAttempt(ctx: AppContext, attempt: Attempt): Promise<void> {
  const locked: Locked = {};
  // The refund registered with the outcome (decision 910), given back to the card once that has committed.
  let refundId: string | null = null;
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
      locked.plan = await subscriptionPlan(tx, locked.sub);
    },
    // A subscription ended since its try opened is not charged, if the try never reached the processor (decision 670).
    stillWanted: () => locked.sub === undefined || !isFinal(locked.sub.status),
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
      refundId = await recordOutcome(ctx, tx, { sub, cycle, plan }, row, at);
    },
  });
  // After the commit, as POST /api/nullification does; refund-dispatch takes over if this is cut short.
  if (refundId !== null) await dispatchNullification(ctx, refundId);
}

/**
 * The cycle's part of its payment's outcome, in the payment's commit: paid, declined (a retry, or the last try and a
 * suspension), due again on a newer card, or cancelled; then the §7.15 callback. Answers the refund registered for a
 * charge approved after its subscription ended (decision 910), or null.
 */
async function recordOutcome(
  ctx: AppContext,
  tx: Tx,
  rows: Required<Locked>,
  payment: TransactionRow,
  at: Date,
): Promise<string | null> {
  const { sub, cycle, plan } = rows;
  // Approved after a cancellation that committed while the charge was in flight (decision 910): given back below,
  // after the charge's own callback, so the merchant hears of the charge before its refund.
  const approvedAfterEnd = payment.status === 'success' && isFinal(sub.status);
  if (approvedAfterEnd) {
    await cancelCycle(tx, cycle);
  } else if (payment.status === 'success') {
    await setCycle(tx, cycle, { status: 'success', paid_at: at, next_try_at: null, ...closed });
  } else {
    const newCardAt = await newerCardAt(tx, sub, payment);
    if (newCardAt === null) await recordDecline(ctx, tx, sub, plan, cycle, at);
    else await retryOnNewCard(ctx, tx, { sub, cycle }, at, newCardAt);
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
  return approvedAfterEnd ? refundEndedCharge(ctx, tx, payment) : null;
}

/** reference §7.15: `transaction_id` a number, `status` of the 5-value set, the subscription and its client. */
function paymentPayload(sub: Pick<SubscriptionRow, 'id' | 'client_id'>, payment: TransactionRow) {
  return {
    // Exact past 2^53 - 1: a bigint there is written as its digits (enqueueCallback, decision 815).
    transaction_id: integerAsExact(payment.number),
    verification_key: payment.verification_key,
    order: payment.order,
    status: payment.status,
    subscriptions: { id: sub.id, client: sub.client_id },
  };
}

/**
 * When a live card newer than the one this payment charged was enrolled, or null: the payer enrolled it while the try
 * was with the processor, so the enrolment could not bring the try forward (overdue.ts skips a cycle in flight).
 */
async function newerCardAt(
  tx: Tx,
  sub: Pick<SubscriptionRow, 'id'>,
  payment: Pick<TransactionRow, 'id'>,
): Promise<Date | null> {
  const charged = await tx
    .selectFrom('su_charges as c')
    .innerJoin('su_cards as k', 'k.id', 'c.card_id')
    .select('k.seq')
    .where('c.transaction_id', '=', payment.id)
    .executeTakeFirst();
  // Only a card enrolled after the one charged: a deleted newest card leaves the older ones to the usual retries.
  const newest = (await liveCards(tx, sub.id))[0];
  if (newest === undefined || charged === undefined || BigInt(newest.seq) <= BigInt(charged.seq))
    return null;
  return newest.created_at;
}

/**
 * A try declined on a card the payer has since replaced (decision 988): the new card is what a new card link is
 * for, so the cycle is due again at once, from when the card came (overdue.ts does the same for a cycle not in
 * flight), and the subscription is not suspended for the old card's decline, whatever try this was.
 */
async function retryOnNewCard(
  ctx: AppContext,
  tx: Tx,
  { sub, cycle }: { sub: SubscriptionRow; cycle: CycleRow },
  at: Date,
  newCardAt: Date,
): Promise<void> {
  if (isFinal(sub.status)) {
    await cancelCycle(tx, cycle);
    return;
  }
  const due = newCardAt.getTime() > at.getTime() ? newCardAt : at;
  await setCycle(tx, cycle, { status: 'retry', next_try_at: due, ...closed });
  ctx.logger.info(
    { subscription: sub.id, cycle: cycle.cycle_number, try: cycle.try_number },
    'subscription cycle declined on a replaced card: due again on the new one',
  );
}

/**
 * A declined try (decision 101): the next one is due one retry interval after this one was, until the plan's
 * `retries_max` retries are spent; then the cycle is `maximum attempt limit` and the subscription `suspended`.
 */
export async function recordDecline(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
  plan: PlanRow,
  cycle: CycleRow,
  at: Date,
): Promise<void> {
  if (isFinal(sub.status)) {
    await cancelCycle(tx, cycle);
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
