// Cards of a subscription (reference §7.12, §7.13): a new enrolment link to add or replace a card, and removing one.
import type { AppContext } from '../../platform/context.ts';
import { ApiError, notFound } from '../../platform/errors/errors.ts';
import { findPlan } from './repository.ts';
import { findSubscription } from './subscription-repository.ts';
import { createEnrolment } from './enrolment-link.ts';
import { isFinal } from './states.ts';
import { markCard, removeCardNow } from './card-removals.ts';

/** POST /api/suinscriptionscards: a new link to the hosted page; the card it enrols is the one charged from then on. */
export async function newCardLink(ctx: AppContext, accountId: string, subscriptionId: string) {
  const sub = await findSubscription(ctx.db, accountId, subscriptionId);
  if (sub === undefined) throw notFound('subscription');
  if (isFinal(sub.status))
    throw new ApiError('validation_failed', `suscription:is ${sub.status}`, {
      errors: { suscription: `is ${sub.status}` },
    });
  const plan = await findPlan(ctx.db, accountId, sub.plan_id);
  if (plan === undefined) throw new Error(`subscription ${sub.id} names a missing plan`);
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
  // Its inscription is deleted at Transbank after the commit, or by the due work if that fails (decision 990).
  await markCard(ctx.db, card.id, now);
  return { status: 'Delete' as const, card: card.id };
}

/**
 * After deleteCard's commit, never inside it (STYLE rule 10, decisions 960 and 990): the card's Oneclick inscription
 * deleted at Transbank at once in production. A failure, or a crash before it, is retried by the due work.
 */
export async function removeDeletedCard(
  ctx: AppContext,
  deleted: { readonly status: 'Delete'; readonly card: string },
) {
  await removeCardNow(ctx, deleted.card);
  return deleted;
}
