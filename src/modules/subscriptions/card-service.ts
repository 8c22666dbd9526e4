// Cards of a subscription (reference §7.12, §7.13): a new enrolment link to add or replace a card, and removing one.
import type { AppContext } from '../../platform/context.ts';
import { ApiError, notFound } from '../../platform/errors/errors.ts';
import { findSubscription, subscriptionPlan } from './subscription-repository.ts';
import { createEnrolment } from './enrolment-link.ts';
import { isFinal } from './states.ts';
import { markCard } from './card-removals.ts';

/** POST /api/suinscriptionscards: a new link to the hosted page; the card it enrols is the one charged from then on. */
export async function newCardLink(ctx: AppContext, accountId: string, subscriptionId: string) {
  const sub = await findSubscription(ctx.db, accountId, subscriptionId);
  if (sub === undefined) throw notFound('subscription');
  if (isFinal(sub.status))
    throw new ApiError('validation_failed', `suscription:is ${sub.status}`, {
      errors: { suscription: `is ${sub.status}` },
    });
  const plan = await subscriptionPlan(ctx.db, sub);
  const url = await createEnrolment(ctx, {
    accountId,
    subscriptionId: sub.id,
    planType: plan.type,
    at: await ctx.accountClock.now(accountId, ctx.db),
  });
  return { status: 'success' as const, id: sub.id, url };
}

/** POST /api/suscriptionsdeletecards: the reference's own 400 shape for a card that is not the merchant's. */
export async function deleteCard(ctx: AppContext, accountId: string, cardId: string | undefined) {
  const card =
    cardId === undefined
      ? undefined
      : await ctx.db
          .selectFrom('su_cards')
          .select('id')
          .where('account_id', '=', accountId)
          .where('id', '=', cardId)
          .where('deleted_at', 'is', null)
          .forUpdate()
          .executeTakeFirst();
  if (card === undefined) throw new ApiError('card_invalid', 'is not valid');
  const now = await ctx.accountClock.now(accountId, ctx.db);
  await ctx.db.updateTable('su_cards').set({ deleted_at: now }).where('id', '=', card.id).execute();
  // Its inscription is deleted at Transbank by the paced due work (decisions 990, 1065, 1105), never in this request:
  // the answer says nothing of Transbank's, and a merchant removing cards at its rate limit would bypass the pace.
  await markCard(ctx.db, card.id, now);
  return { status: 'Delete' as const, card: card.id };
}
