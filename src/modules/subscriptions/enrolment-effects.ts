// What recording an enrolled card does besides keeping the card (enrolment.ts): the CLP 50 verification charge and
// its refund in the ledger, and a first card's activation of its subscription with the plan's callback.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../platform/ledger/ledger.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import type { PlanRow } from './repository.ts';
import type { SubscriptionRow } from './subscription-repository.ts';
import { moveSubscription } from './subscription-transition.ts';
import { firstCycleAt } from './cycles.ts';

const activationEvent = 'subscription.activation';

/** The verification charge and its refund in the ledger: through the verification holding, back to clearing. */
export async function postVerification(
  ctx: AppContext,
  tx: Tx,
  attemptKey: string,
  now: Date,
): Promise<void> {
  const amount = subscriptionLimits.verificationAmountMinor;
  await ctx.ledger.post(tx, {
    kind: journalKinds.subscriptionVerification,
    reference: attemptKey,
    at: now,
    postings: [
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.processorClearing,
        currency: 'CLP',
        amountMinor: -amount,
      },
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.verificationHolding,
        currency: 'CLP',
        amountMinor: amount,
      },
    ],
  });
  await ctx.ledger.post(tx, {
    kind: journalKinds.subscriptionVerificationRefund,
    reference: attemptKey,
    at: now,
    postings: [
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.verificationHolding,
        currency: 'CLP',
        amountMinor: -amount,
      },
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.refundClearing,
        currency: 'CLP',
        amountMinor: amount,
      },
    ],
  });
}

/** A first card activates a subscription: its first cycle is due, and the plan's url_notify_suscription told. */
export async function activate(
  ctx: AppContext,
  tx: Tx,
  sub: SubscriptionRow,
  plan: PlanRow,
  now: Date,
): Promise<void> {
  await moveSubscription(tx, sub, 'active', now);
  await tx
    .updateTable('su_subscriptions')
    .set({ next_cycle_at: firstCycleAt(plan, now, ctx.config.timeZone) })
    .where('id', '=', sub.id)
    .execute();
  if (plan.url_notify_suscription !== '') {
    await enqueueCallback(tx, {
      accountId: sub.account_id,
      url: plan.url_notify_suscription,
      eventType: activationEvent,
      payload: { id: sub.id, status: 'active' },
      at: now,
    });
  }
}
